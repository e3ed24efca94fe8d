#include "verifier/harness/catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "rules/registry.h"
#include "verifier/harness/costs.h"

namespace gpulint::verifier {
namespace {

TEST(VerifierCatalog, OneExperimentPerFamilyAsTheIssueLists) {
  std::vector<std::string> names;
  for (const ExperimentInfo& e : experiment_catalog()) names.emplace_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"sync", "dynamic", "loading", "transfer", "placement",
                                             "precision", "debug"}));
  EXPECT_EQ(rules_of_experiment("dynamic"), (std::vector<std::string>{"GL106", "GL107", "GL503"}));
  EXPECT_EQ(rules_of_experiment("debug"), (std::vector<std::string>{"GL501"}));
}

// Each rule's `measure` names an experiment of the catalog, and its figures and description
// fill in completely with the default parameters.
TEST(VerifierCatalog, EveryMeasuredRuleHasACostSpecInItsExperiment) {
  size_t measured = 0;
  for (const Rule* rule : all_rules()) {
    const std::optional<CostSpec> spec = cost_spec(rule->info.code, Params{});
    if (rule->measure.experiment.empty()) {
      EXPECT_FALSE(spec) << rule->info.code;
      continue;
    }
    ++measured;
    ASSERT_TRUE(spec) << rule->info.code;
    EXPECT_NE(find_experiment(spec->experiment), nullptr) << rule->info.code;
    for (const std::string& s : {spec->bad, spec->good, spec->what}) {
      EXPECT_EQ(s.find_first_of("{}"), std::string::npos) << rule->info.code << ": " << s;
      EXPECT_FALSE(s.empty()) << rule->info.code;
    }
  }
  EXPECT_EQ(measured, 21u);
  EXPECT_EQ(cost_spec("GL206", Params{})->bad, "batch.b1");
  EXPECT_EQ(cost_spec("GL405", Params{})->good, "gemm.bf16.k4096");
}

TEST(VerifierCatalog, RulesSelectExperimentsInSuiteOrder) {
  const RuleSelection s = experiments_for_rules({"GL404", "GL101", "GL502", "GL103", "GL502"});
  EXPECT_EQ(s.experiments, (std::vector<std::string>{"sync", "precision"}));
  EXPECT_EQ(s.unmeasured, (std::vector<std::string>{"GL502"}));
}

}  // namespace
}  // namespace gpulint::verifier

#include "verifier/harness/catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "verifier/harness/costs.h"

namespace gpulint::verifier {
namespace {

TEST(VerifierCatalog, OneExperimentPerFamilyAsTheIssueLists) {
  std::vector<std::string> names;
  for (const ExperimentInfo& e : experiment_catalog()) names.emplace_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"sync", "dynamic", "loading", "transfer", "placement",
                                             "precision", "debug"}));
  EXPECT_EQ(experiment_for_rule("GL101")->name, "sync");
  EXPECT_EQ(experiment_for_rule("GL107")->name, "dynamic");
  EXPECT_EQ(experiment_for_rule("GL503")->name, "dynamic");
  EXPECT_EQ(experiment_for_rule("GL206")->name, "loading");
  EXPECT_EQ(experiment_for_rule("GL204")->name, "transfer");
  EXPECT_EQ(experiment_for_rule("GL303")->name, "placement");
  EXPECT_EQ(experiment_for_rule("GL405")->name, "precision");
  EXPECT_EQ(experiment_for_rule("GL501")->name, "debug");
  EXPECT_EQ(experiment_for_rule("GL502"), nullptr);
}

TEST(VerifierCatalog, EveryMeasuredRuleHasACostSpecInItsExperiment) {
  std::set<std::string> codes;
  for (const ExperimentInfo& e : experiment_catalog()) {
    for (std::string_view code : e.rules) {
      EXPECT_TRUE(codes.insert(std::string(code)).second) << code << " is in two experiments";
      const std::optional<CostSpec> spec = cost_spec(code, Params{});
      ASSERT_TRUE(spec) << code;
      EXPECT_EQ(spec->experiment, e.name) << code;
    }
  }
  EXPECT_EQ(codes.size(), 21u);
}

TEST(VerifierCatalog, RulesSelectExperimentsInSuiteOrder) {
  const RuleSelection s = experiments_for_rules({"GL404", "GL101", "GL502", "GL103", "GL502"});
  EXPECT_EQ(s.experiments, (std::vector<std::string>{"sync", "precision"}));
  EXPECT_EQ(s.unmeasured, (std::vector<std::string>{"GL502"}));
}

}  // namespace
}  // namespace gpulint::verifier

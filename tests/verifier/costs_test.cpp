#include "verifier/harness/costs.h"

#include <gtest/gtest.h>

#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/verifier/sample_report.h"

namespace gpulint::verifier {
namespace {

Diagnostic finding(std::string code, std::vector<std::pair<std::string, int64_t>> parameters = {}) {
  Diagnostic d;
  d.code = std::move(code);
  d.parameters = std::move(parameters);
  return d;
}

TEST(VerifierCosts, TimesGiveTheExtraTimeAndTheSlowdown) {
  const std::optional<Cost> c = cost_for("GL101", testing::sample_report(), Params{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->experiment, "sync");
  EXPECT_DOUBLE_EQ(c->value, 20);
  EXPECT_EQ(c->unit, "us/step");
  EXPECT_EQ(c->device, "NVIDIA Test GPU");
  EXPECT_EQ(c->summary,
            "+20.0 us/step (x1.25: 100 vs 80.0): a 4-byte device-to-host read every step, a "
            "balanced step of 16 kernels, on NVIDIA Test GPU");
}

TEST(VerifierCosts, RatesGiveTheSlowdownFactor) {
  const std::optional<Cost> c = cost_for("GL401", testing::sample_report(), Params{});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->value, 12);
  EXPECT_EQ(c->unit, "x");
  EXPECT_EQ(c->summary.rfind("x12.0 slower (50.0 vs 600 TFLOP/s)", 0), 0u) << c->summary;
}

TEST(VerifierCosts, NoCostWithoutItsExperimentOrFigures) {
  const Report r = testing::sample_report();
  EXPECT_FALSE(cost_for("GL202", r, Params{}));  // transfer failed
  EXPECT_FALSE(cost_for("GL501", r, Params{}));  // debug did not run
  EXPECT_FALSE(cost_for("GL502", r, Params{}));  // no experiment measures it
  Params compute;
  compute.profile = "compute";  // the sample has no compute-profile figures
  EXPECT_FALSE(cost_for("GL101", r, compute));
}

TEST(VerifierCosts, FindingsSayWhatTheyKnowStatically) {
  EXPECT_EQ(finding_params(finding("GL206", {{"batch_size", 4}})).batch_size, 4);
  EXPECT_EQ(finding_params(finding("GL405", {{"dimension", 1000}})).unaligned_dim, 1000);
  EXPECT_EQ(finding_params(finding("GL303", {{"random_fill", 0}})).random_fill, false);
  EXPECT_EQ(finding_params(finding("GL303", {{"random_fill", 1}})).random_fill, true);
  EXPECT_FALSE(finding_params(finding("GL206", {{"batch_size", 0}})).batch_size);
  EXPECT_FALSE(finding_params(finding("GL101")).batch_size);
}

// The parameters come from the rules themselves, not from reading messages back.
TEST(VerifierCosts, RulesStateTheParametersTheirCostsNeed) {
  const std::string text = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(64, 1001)).to(device)
small = DataLoader(data, batch_size=4, num_workers=4, pin_memory=True)
one = DataLoader(data, num_workers=4, pin_memory=True)
noise = torch.randn(8, 64).to(device)
zeros = torch.zeros(8, 64).to(device)
opt = torch.optim.AdamW(model.parameters())
for loader in (small, one):
    for x in loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x.to(device) + noise + zeros).sum()
        loss.backward()
        opt.step()
)";
  std::vector<const Rule*> rules = {find_rule("GL206"), find_rule("GL303"), find_rule("GL405")};
  std::vector<FindingParams> seen;
  for (const Diagnostic& d : lint_source(SourceFile("train.py", text), rules)) {
    seen.push_back(finding_params(d));
  }
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0].unaligned_dim, 1001);  // line 6
  EXPECT_EQ(seen[1].batch_size, 4);        // line 7
  EXPECT_EQ(seen[2].batch_size, 1);        // line 8: DataLoader's default
  EXPECT_EQ(seen[3].random_fill, true);    // line 9
  EXPECT_EQ(seen[4].random_fill, false);   // line 10
}

TEST(VerifierCosts, ConstantFactoriesAreComparedWithTheConstantFill) {
  FindingParams zeros;
  zeros.random_fill = false;
  EXPECT_EQ(cost_spec("GL303", Params{}, zeros)->bad, "fill.zeros_host_copy");
  EXPECT_EQ(cost_spec("GL303", Params{})->bad, "fill.host_copy");
}

TEST(VerifierCosts, PlanRunsTheExperimentsOfTheRulesThatFired) {
  const std::vector<Diagnostic> ds = {
      finding("GL405", {{"dimension", 1000}}),
      finding("GL101"),
      finding("GL206", {{"batch_size", 2}}),
      finding("GL206", {{"batch_size", 2}}),
      finding("GL502"),
  };
  const Params p = plan_for(ds, Params{});
  EXPECT_EQ(p.experiments, (std::vector<std::string>{"sync", "loading", "precision"}));
  EXPECT_EQ(p.batch_sizes, (std::vector<int64_t>{2}));
  EXPECT_EQ(p.unaligned_dims, (std::vector<int64_t>{1000}));
}

TEST(VerifierCosts, AttachUsesEachFindingsOwnParameters) {
  std::vector<Diagnostic> ds = {finding("GL405", {{"dimension", 1001}}), finding("GL103"),
                                finding("GL502"), finding("GL204")};
  EXPECT_EQ(attach_costs(ds, testing::sample_report(), Params{}), 2u);
  ASSERT_TRUE(ds[0].cost);
  EXPECT_DOUBLE_EQ(ds[0].cost->value, 2);  // 400 vs 200 TFLOP/s at K=1008 vs K=1001
  ASSERT_TRUE(ds[1].cost);
  EXPECT_DOUBLE_EQ(ds[1].cost->value, 30);
  EXPECT_FALSE(ds[2].cost);
  EXPECT_FALSE(ds[3].cost);
}

TEST(VerifierCosts, FiguresKeepThreeSignificantDigits) {
  EXPECT_EQ(format_figure(1234.5), "1234");
  EXPECT_EQ(format_figure(12.345), "12.3");
  EXPECT_EQ(format_figure(1.2345), "1.23");
  EXPECT_EQ(format_figure(0.012345), "0.0123");
  EXPECT_EQ(format_figure(0), "0");
  EXPECT_EQ(format_figure(-3.5), "-3.50");
}

}  // namespace
}  // namespace gpulint::verifier

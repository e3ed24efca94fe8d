#include "verifier/harness/costs.h"

#include <gtest/gtest.h>

#include "tests/verifier/sample_report.h"

namespace gpulint::verifier {
namespace {

Diagnostic finding(std::string code, std::string message = "") {
  Diagnostic d;
  d.code = std::move(code);
  d.message = std::move(message);
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
  EXPECT_EQ(finding_params(finding("GL206",
                                   "DataLoader with `batch_size=4` launches kernels "
                                   "too small to fill the GPU"))
                .batch_size,
            4);
  EXPECT_EQ(finding_params(finding("GL206",
                                   "DataLoader without `batch_size` yields one sample "
                                   "per step (the default is 1)"))
                .batch_size,
            1);
  EXPECT_EQ(finding_params(finding("GL405",
                                   "`nn.Linear` size 1000 is not a multiple of 8: its "
                                   "half-precision GEMMs miss the tensor-core tile"))
                .unaligned_dim,
            1000);
  EXPECT_FALSE(finding_params(finding("GL101", "batch_size=4")).batch_size);
  EXPECT_EQ(finding_params(finding("GL303",
                                   "`torch.zeros(...)` is filled on the CPU and then "
                                   "copied to the GPU"))
                .random_fill,
            false);
  EXPECT_EQ(finding_params(finding("GL303", "`torch.randn(...)` is filled on the CPU")).random_fill,
            true);
}

TEST(VerifierCosts, ConstantFactoriesAreComparedWithTheConstantFill) {
  FindingParams zeros;
  zeros.random_fill = false;
  EXPECT_EQ(cost_spec("GL303", Params{}, zeros)->bad, "fill.zeros_host_copy");
  EXPECT_EQ(cost_spec("GL303", Params{})->bad, "fill.host_copy");
}

TEST(VerifierCosts, PlanRunsTheExperimentsOfTheRulesThatFired) {
  const std::vector<Diagnostic> ds = {
      finding("GL405", "`nn.Linear` size 1000 is not a multiple of 8"),
      finding("GL101"),
      finding("GL206", "DataLoader with `batch_size=2` launches"),
      finding("GL206", "DataLoader with `batch_size=2` launches"),
      finding("GL502"),
  };
  const Params p = plan_for(ds, Params{});
  EXPECT_EQ(p.experiments, (std::vector<std::string>{"sync", "loading", "precision"}));
  EXPECT_EQ(p.batch_sizes, (std::vector<int64_t>{2}));
  EXPECT_EQ(p.unaligned_dims, (std::vector<int64_t>{1000}));
}

TEST(VerifierCosts, AttachUsesEachFindingsOwnParameters) {
  std::vector<Diagnostic> ds = {finding("GL405", "`nn.Linear` size 1001 is not a multiple of 8"),
                                finding("GL103"), finding("GL502"), finding("GL204")};
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

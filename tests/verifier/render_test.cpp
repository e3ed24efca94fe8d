#include "verifier/harness/render.h"

#include <gtest/gtest.h>

#include "tests/verifier/sample_report.h"

namespace gpulint::verifier {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(VerifierRender, TableShowsDeviceFiguresSpreadErrorsAndCosts) {
  Report r = testing::sample_report();
  r.experiments[0].measurements[1].stable = false;
  r.experiments[0].notes = {"the log line goes to /dev/null"};
  const std::vector<RuleCost> costs = rule_costs(r, Params{});
  const std::string t = render_table(r, costs);
  EXPECT_TRUE(has(t, "gpulint verify on NVIDIA Test GPU (sm_90")) << t;
  EXPECT_TRUE(has(t, "clocks at start: SM 1980 MHz, memory 3201 MHz")) << t;
  EXPECT_TRUE(has(t, "sync (GL101 GL102 GL103 GL104 GL105): 1.50 s")) << t;
  EXPECT_TRUE(has(t, "; other processes used 2.8 CPU cores\n")) << t;
  EXPECT_TRUE(has(t, "precision (GL401 GL403 GL404 GL405): 0.00 s\n")) << t;  // load unread
  EXPECT_TRUE(has(t, "balanced.readback")) << t;
  EXPECT_TRUE(has(t, "100 us/step   [99.0 .. 101] n=9 (median not settled)")) << t;
  EXPECT_TRUE(has(t, "note: the log line goes to /dev/null")) << t;
  EXPECT_TRUE(has(t, "error: cudaErrorMemoryAllocation: out of memory")) << t;
  EXPECT_TRUE(has(t, "GL101 item-in-loop ")) << t;
  EXPECT_TRUE(has(t, "  +20.0 us/step (x1.25")) << t;
  EXPECT_TRUE(has(t, "GL202")) << t;
  EXPECT_TRUE(has(t, "experiment failed")) << t;
  EXPECT_TRUE(has(t, "suite: 3.2 s")) << t;
}

TEST(VerifierRender, CostsCoverEveryRuleOfTheExperimentsThatRan) {
  const std::vector<RuleCost> costs = rule_costs(testing::sample_report(), Params{});
  ASSERT_EQ(costs.size(), 12u);  // sync 5, transfer 3, precision 4: the suite's order
  EXPECT_EQ(costs.front().code, "GL101");
  EXPECT_TRUE(costs.front().measured);
  EXPECT_EQ(costs[5].code, "GL202");
  EXPECT_EQ(costs[5].summary, "experiment failed");
  EXPECT_EQ(costs.back().code, "GL405");
  EXPECT_FALSE(costs.back().measured);  // no K=4095 figure in the sample
}

}  // namespace
}  // namespace gpulint::verifier

// Traces recorded by `gpulint profile --keep` on an H200 (torch 2.11) and trimmed by
// fixtures/profile/trim.py to three steps: examples/train.py, and fixtures/profile/four_syncs.py
// with --matmuls 9.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "profile/attribution.h"
#include "profile/run_record.h"

namespace gpulint::profile {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GPULINT_SOURCE_DIR) + "/fixtures/profile/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Attribution attributed(const std::string& name) {
  std::string error;
  const std::optional<Trace> trace = read_trace(fixture(name + ".trace.json"), &error);
  EXPECT_TRUE(trace) << error;
  return trace ? attribute(*trace) : Attribution{};
}

const LineCost* line_at(const Attribution& a, int line) {
  for (const LineCost& cost : a.lines) {
    if (cost.where.line == line) return &cost;
  }
  return nullptr;
}

TEST(RecordedTrace, FourSyncsEachLineWaitsEveryStepAndTheyActTogether) {
  const Attribution a = attributed("four_syncs");
  EXPECT_EQ(a.breakdown.steps, 3);
  EXPECT_NEAR(a.breakdown.gpu_busy_us + a.breakdown.gpu_idle_us, a.breakdown.step_us, 0.01);
  for (const auto& [line, per_step] : {std::pair{45, 1.0}, {47, 1.0}, {49, 1.0}, {51, 8.0}}) {
    const LineCost* cost = line_at(a, line);
    ASSERT_NE(cost, nullptr) << "line " << line;
    EXPECT_EQ(cost->kind, HostWait::Kind::Sync);
    EXPECT_DOUBLE_EQ(cost->waits_per_step, per_step) << "line " << line;
    EXPECT_TRUE(cost->where.file.ends_with("fixtures/profile/four_syncs.py"));
  }
  EXPECT_EQ(line_at(a, 47)->cause, SyncCause::CopyToHost);
  EXPECT_EQ(line_at(a, 49)->cause, SyncCause::Synchronize);
  ASSERT_TRUE(a.syncs);
  EXPECT_EQ(a.syncs->lines.size(), 4u);
  EXPECT_GT(a.syncs->saving_us_per_step, 0);
  EXPECT_LT(a.syncs->saving_us_per_step, a.breakdown.step_us);
}

TEST(RecordedTrace, TrainWaitsForItsBatchesAtTheLoopAndSyncsAtFiveLines) {
  const Attribution a = attributed("train");
  EXPECT_EQ(a.breakdown.steps, 3);
  const LineCost* loop = line_at(a, 73);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->kind, HostWait::Kind::Data);
  // num_workers=0 and a dataset that builds each image: the loader is most of the step.
  EXPECT_GT(loop->gpu_idle_us_per_step, 0.2 * a.breakdown.step_us);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_waiting_for_data_us, loop->gpu_idle_us_per_step);
  for (int line : {75, 77, 86, 89, 91}) {
    const LineCost* cost = line_at(a, line);
    ASSERT_NE(cost, nullptr) << "line " << line;
    EXPECT_EQ(cost->kind, HostWait::Kind::Sync);
  }
  EXPECT_DOUBLE_EQ(line_at(a, 75)->waits_per_step, 2);  // images.to(device), labels.to(device)
  EXPECT_EQ(line_at(a, 86)->cause, SyncCause::Synchronize);
  ASSERT_TRUE(a.syncs);
  EXPECT_EQ(a.syncs->lines.size(), 5u);
}

// examples/train.py copies its batch, its labels and a label tensor it built on the CPU to the
// GPU every step, from pageable memory; the four-sync loop copies nothing to the GPU.
TEST(RecordedTrace, CopiesToTheGpuAreCountedByTheMemoryTheyComeFrom) {
  const Attribution train = attributed("train");
  EXPECT_DOUBLE_EQ(train.breakdown.pageable_copies, 3);
  EXPECT_DOUBLE_EQ(train.breakdown.pageable_bytes, 789504);  // 64 x 3 x 32 x 32 floats, and more
  EXPECT_DOUBLE_EQ(train.breakdown.pinned_copies, 0);
  const Attribution four = attributed("four_syncs");
  EXPECT_DOUBLE_EQ(four.breakdown.pageable_copies + four.breakdown.pinned_copies, 0);
  EXPECT_GT(four.breakdown.gpu_ops, 50);
}

}  // namespace
}  // namespace gpulint::profile

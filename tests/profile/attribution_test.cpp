// The attribution of a step's idle GPU time, on synthetic steps whose answer is known.

#include <gtest/gtest.h>

#include "profile/attribution.h"

namespace gpulint::profile {
namespace {

HostWait sync_at(int line, double start, double end) {
  return {HostWait::Kind::Sync, {start, end}, {"/w/train.py", line}};
}

// Two steps of 1000 us: the GPU busy 300 us of each, then idle while the host works, with two
// synchronising lines a step.
Trace two_synced_steps() {
  Trace t;
  for (double at : {0.0, 1000.0}) {
    t.steps.push_back({at, at + 1000});
    t.gpu.push_back({at + 0, at + 200});
    t.gpu.push_back({at + 150, at + 300});  // overlaps the first: counted once
    t.waits.push_back(sync_at(45, at + 250, at + 300));
    t.waits.push_back(sync_at(51, at + 900, at + 910));
  }
  return t;
}

TEST(ProfileAttribution, SplitsTheStepIntoBusyAndIdle) {
  const Attribution a = attribute(two_synced_steps());
  EXPECT_EQ(a.breakdown.steps, 2);
  EXPECT_DOUBLE_EQ(a.breakdown.step_us, 1000);
  EXPECT_DOUBLE_EQ(a.breakdown.gpu_busy_us, 300);
  EXPECT_DOUBLE_EQ(a.breakdown.gpu_idle_us, 700);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_host_work_us, 700);
  EXPECT_DOUBLE_EQ(a.breakdown.sync_wait_us, 60);
}

TEST(ProfileAttribution, SynchronisingLinesActTogether) {
  const Attribution a = attribute(two_synced_steps());
  ASSERT_EQ(a.lines.size(), 2u);
  EXPECT_EQ(a.lines[0].where.line, 45);  // the longer wait first
  EXPECT_DOUBLE_EQ(a.lines[0].waits_per_step, 1);
  EXPECT_DOUBLE_EQ(a.lines[0].wait_us_per_step, 50);
  ASSERT_TRUE(a.syncs);
  EXPECT_EQ(a.syncs->lines.size(), 2u);
  // Without them the host's 940 us of work overlap the GPU's 300: the step is 940 us.
  EXPECT_DOUBLE_EQ(a.syncs->step_without_us, 940);
  EXPECT_DOUBLE_EQ(a.syncs->saving_us_per_step, 60);
}

TEST(ProfileAttribution, ChargesDataWaitsWithTheGpuIdleDuringThem) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({600, 1000});
  t.waits.push_back({HostWait::Kind::Data, {0, 500}, {"/w/train.py", 73}});
  const Attribution a = attribute(t);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_waiting_for_data_us, 500);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_host_work_us, 100);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].kind, HostWait::Kind::Data);
  EXPECT_DOUBLE_EQ(a.lines[0].gpu_idle_us_per_step, 500);
  EXPECT_FALSE(a.syncs);
}

}  // namespace
}  // namespace gpulint::profile

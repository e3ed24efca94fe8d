// The attribution of a step's idle GPU time, on synthetic steps whose answer is known.

#include <gtest/gtest.h>

#include "profile/attribution.h"

namespace gpulint::profile {
namespace {

HostWait sync_at(int line, double start, double end) {
  return {HostWait::Kind::Sync, {start, end}, {start, end}, {"/w/train.py", line}};
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
  // Alone, a line saves only the GPU idle while the host is in it: none for the line that
  // waits for the GPU's work, 10 us for the one after it.
  EXPECT_DOUBLE_EQ(a.lines[0].saving_us_per_step, 0);
  EXPECT_DOUBLE_EQ(a.lines[1].saving_us_per_step, 10);
}

// A step bound by its GPU, 1000 us under the profiler and 900 us without it: a wait for the
// GPU's 700 us of work, then a print holding the host 100 us while the GPU has nothing to do.
// The host's own work while the GPU idles is shared out by where the host was sampled: of the
// 690 us a step of idle outside the two lines, 3 samples of 4 at line 60, 1 at line 70. A
// sample while the GPU is busy, or inside a marked line, says nothing of the idle.
TEST(ProfileAttribution, SharesTheHostsIdleWorkByItsSampledLines) {
  const std::vector<HostSample> samples = {
      {100, {"/w/train.py", 60}},  // the GPU busy
      {400, {"/w/train.py", 60}},  {500, {"/w/train.py", 60}},
      {905, {"/w/train.py", 51}},                                // inside the line at 51
      {1600, {"/w/train.py", 70}}, {1450, {"/w/train.py", 60}},  // out of order
  };
  const Attribution a = attribute(two_synced_steps(), {}, samples);
  EXPECT_EQ(a.host_samples, 4);
  ASSERT_EQ(a.host_lines.size(), 2u);
  EXPECT_EQ(a.host_lines[0].where.line, 60);
  EXPECT_EQ(a.host_lines[0].samples, 3);
  EXPECT_DOUBLE_EQ(a.host_lines[0].gpu_idle_us_per_step, 690.0 * 3 / 4);
  EXPECT_DOUBLE_EQ(a.host_lines[1].gpu_idle_us_per_step, 690.0 / 4);
  EXPECT_TRUE(attribute(two_synced_steps()).host_lines.empty());
}

TEST(ProfileAttribution, SavingsAreAgainstTheStepWithoutTheProfiler) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({0, 700});
  t.waits.push_back({HostWait::Kind::Sync, {300, 700}, {290, 700}, {"/w/train.py", 45}});
  t.waits.push_back({HostWait::Kind::Sync, {700, 705}, {700, 800}, {"/w/train.py", 51}});
  const Attribution a = attribute(t, 900.0);
  EXPECT_DOUBLE_EQ(a.breakdown.unprofiled_step_us, 900);
  ASSERT_TRUE(a.syncs);
  // The host's other work, 490 us less the profiler's 100, hides under the GPU's 700.
  EXPECT_DOUBLE_EQ(a.syncs->step_without_us, 700);
  EXPECT_DOUBLE_EQ(a.syncs->saving_us_per_step, 200);
  ASSERT_EQ(a.lines.size(), 2u);
  EXPECT_EQ(a.lines[1].where.line, 51);
  EXPECT_DOUBLE_EQ(a.lines[1].own_idle_us_per_step, 100);
  // The profiler's 100 us lengthen the step only in its 300 us of idle GPU: the print's own
  // 100 us there are 2/3 of that without the profiler.
  EXPECT_NEAR(a.lines[1].saving_us_per_step, 100.0 * 200 / 300, 1e-9);
  EXPECT_DOUBLE_EQ(a.lines[0].saving_us_per_step, 0);
}

// A step bound by its GPU (800 us of work), 1300 us under the profiler and 1100 us without
// it. Under the profiler the host launches for 700 us, waits at line 41 for 100 us, then works
// 500 us: its work outside the line reads 1200 us, less the 200 us the step lengthened, 1000.
// Without the profiler its launches took 300 us and the wait 500, which the profiler's
// overhead had shortened: the warm-up's samples say so, and the host's work is 600 us.
TEST(ProfileAttribution, TheHostsWorkWithoutTheProfilerComesFromTheWarmUpsSamples) {
  Trace t;
  t.steps.push_back({0, 1300});
  t.gpu.push_back({0, 800});
  t.waits.push_back(sync_at(41, 700, 800));
  const Attribution unsampled = attribute(t, 1100.0);
  ASSERT_TRUE(unsampled.syncs);
  EXPECT_DOUBLE_EQ(unsampled.syncs->step_without_us, 1000);
  const std::vector<LineTime> warmup = {{{"/w/train.py", 41}, 500}, {{"/w/train.py", 60}, 250}};
  const Attribution a = attribute(t, 1100.0, {}, warmup);
  ASSERT_TRUE(a.syncs);
  EXPECT_DOUBLE_EQ(a.syncs->step_without_us, 800);  // the GPU's work, now the longer
  EXPECT_DOUBLE_EQ(a.syncs->saving_us_per_step, 300);
  EXPECT_DOUBLE_EQ(a.lines[0].saving_us_per_step, 300);  // the only line: the group's saving
}

// A wait shorter than the sampling interval goes unseen in the warm-up: there the profiled
// step's reading of the host's work, the smaller, stands.
TEST(ProfileAttribution, AWaitTheWarmUpsSamplesMissedLeavesTheProfiledReading) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({0, 200});
  t.waits.push_back(sync_at(41, 200, 260));
  const std::vector<LineTime> warmup = {{{"/w/train.py", 60}, 700}};  // not at line 41
  const Attribution a = attribute(t, 1000.0, {}, warmup);
  ASSERT_TRUE(a.syncs);
  EXPECT_DOUBLE_EQ(a.syncs->step_without_us, 940);
  EXPECT_DOUBLE_EQ(a.syncs->saving_us_per_step, 60);
}

// While the host waits, the GPU runs what it had queued: the gaps between those operations are
// its own, and the step cannot fall below its busy time plus such a gap before each operation.
TEST(ProfileAttribution, TheGpusWorkIncludesItsGapsBetweenQueuedOperations) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({0, 100});
  t.gpu.push_back({103, 200});
  t.gpu.push_back({205, 300});
  t.waits.push_back(sync_at(45, 50, 900));
  const Attribution a = attribute(t, 700.0);
  EXPECT_DOUBLE_EQ(a.breakdown.queued_gap_us, 4);  // 3 + 5 us before the two queued ones
  EXPECT_DOUBLE_EQ(a.breakdown.gpu_work_us(), 292 + 3 * 4);
  ASSERT_TRUE(a.syncs);
  // The host's 150 us outside the wait, less the profiler's 300, hide under the GPU's 304.
  EXPECT_DOUBLE_EQ(a.syncs->step_without_us, 304);
}

// Where the trace ties each operation to its launch, every operation launched while the one
// before it ran counts, waits or not: a GPU-bound loop without a single wait still shows them.
// One launched after the one before it ended (the GPU waited for the host) does not.
TEST(ProfileAttribution, QueuedGapsComeFromEveryOperationLaunchedAhead) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu = {{0, 100}, {102, 200}, {204, 300}, {400, 500}};
  t.gpu_launched = {-10, 50, 150, 350};  // the last was launched after the third ended
  const Attribution a = attribute(t, 1000.0);
  EXPECT_DOUBLE_EQ(a.breakdown.queued_gap_us, 3);  // 2 and 4 us; the 100 us gap is the host's
  EXPECT_DOUBLE_EQ(a.breakdown.gpu_work_us(), 394 + 4 * 3);  // busy 100 + 98 + 96 + 100
}


TEST(ProfileAttribution, ChargesDataWaitsWithTheGpuIdleDuringThem) {
  Trace t;
  t.steps.push_back({0, 1000});
  t.gpu.push_back({600, 1000});
  t.waits.push_back({HostWait::Kind::Data, {0, 500}, {0, 500}, {"/w/train.py", 73}});
  const Attribution a = attribute(t);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_waiting_for_data_us, 500);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_host_work_us, 100);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].kind, HostWait::Kind::Data);
  EXPECT_DOUBLE_EQ(a.lines[0].gpu_idle_us_per_step, 500);
  EXPECT_DOUBLE_EQ(a.lines[0].saving_us_per_step, 500);
  EXPECT_FALSE(a.syncs);
}

// Ten 20 us kernels 30 us apart, then the host's own 500 us: the nine gaps between kernels are
// launch gaps, except the one a marked line holds; the tail after the last kernel is not.
TEST(ProfileAttribution, ShortGapsBetweenGpuOperationsAreLaunchGaps) {
  Trace t;
  t.steps.push_back({0, 1000});
  for (int k = 0; k < 10; ++k) t.gpu.push_back({50.0 * k, 50.0 * k + 20});
  t.waits.push_back(sync_at(45, 70, 100));  // holds the gap after the second kernel
  const Attribution a = attribute(t);
  EXPECT_DOUBLE_EQ(a.breakdown.gpu_ops, 10);
  EXPECT_DOUBLE_EQ(a.breakdown.median_gpu_op_us, 20);
  EXPECT_DOUBLE_EQ(a.breakdown.idle_between_launches_us, 8 * 30);
}

}  // namespace
}  // namespace gpulint::profile

// The shim's records read back: what is kept from a profiler trace, and the errors for what
// is not one.

#include <gtest/gtest.h>

#include "profile/run_record.h"

namespace gpulint::profile {
namespace {

// A trace as the profiler writes one, reduced to a step, GPU work, the shim's marks and the
// blocking calls around them, on the thread "1" that ran the step. Torch hands its warning to
// Python after the operator returns, so a sync mark follows its blocking calls.
constexpr const char* kTrace = R"json({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "gpulint/step 1", "tid": 1, "ts": 100, "dur": 1000},
  {"ph": "X", "cat": "kernel", "name": "gemm", "tid": 7, "ts": 150, "dur": 300},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "tid": 7, "ts": 460, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 501, "dur": 5},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 9, "ts": 502, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 1, "ts": 510, "dur": 20},
  {"ph": "X", "cat": "user_annotation", "name": "gpulint/sync /w/train.py:45", "tid": 1, "ts": 540, "dur": 0.5},
  {"ph": "X", "cat": "user_annotation", "name": "gpulint/sync /w/a:b.py:49", "tid": 1, "ts": 600, "dur": 40},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "tid": 1, "ts": 605, "dur": 30},
  {"ph": "X", "cat": "user_annotation", "name": "gpulint/data /w/train.py:73", "tid": 1, "ts": 700, "dur": 200},
  {"ph": "X", "cat": "user_annotation", "name": "gpulint/sync /w/train.py:80", "tid": 1, "ts": 950, "dur": 1}
]})json";

TEST(ProfileRecords, KeepsStepsGpuWorkAndTheWaitsAtTheirLines) {
  std::string error;
  const std::optional<Trace> trace = read_trace(kTrace, &error);
  ASSERT_TRUE(trace) << error;
  ASSERT_EQ(trace->steps.size(), 1u);
  EXPECT_DOUBLE_EQ(trace->steps[0].end, 1100);
  EXPECT_EQ(trace->gpu.size(), 2u);
  ASSERT_EQ(trace->waits.size(), 4u);
  // The mark's wait is the first blocking call of its own thread after it, not another's.
  EXPECT_EQ(trace->waits[0].where.file, "/w/train.py");
  EXPECT_EQ(trace->waits[0].where.line, 45);
  EXPECT_DOUBLE_EQ(trace->waits[0].when.start, 510);
  EXPECT_DOUBLE_EQ(trace->waits[0].when.end, 530);
  // A colon in the file name: the line is after the last one. A mark around
  // torch.cuda.synchronize waits inside it.
  EXPECT_EQ(trace->waits[1].where.file, "/w/a:b.py");
  EXPECT_EQ(trace->waits[1].where.line, 49);
  EXPECT_DOUBLE_EQ(trace->waits[1].when.start, 605);
  EXPECT_EQ(trace->waits[2].kind, HostWait::Kind::Data);
  EXPECT_DOUBLE_EQ(trace->waits[2].when.end, 900);
  // No blocking call follows the last mark: the mark itself is the wait.
  EXPECT_DOUBLE_EQ(trace->waits[3].when.start, 950);
  EXPECT_DOUBLE_EQ(trace->waits[3].when.end, 951);
}

// .item(), .cpu(), torch.cuda.synchronize(), a branch and a print as the profiler shows them:
// the operators around the blocking calls, the copies they launched (tied by correlation), and
// the marks after them.
constexpr const char* kCauses = R"json({"traceEvents": [
  {"cat": "user_annotation", "name": "gpulint/step 1", "tid": 1, "ts": 0, "dur": 1000},
  {"cat": "cpu_op", "name": "aten::item", "tid": 1, "ts": 101, "dur": 60},
  {"cat": "cpu_op", "name": "aten::_local_scalar_dense", "tid": 1, "ts": 102, "dur": 58},
  {"cat": "cuda_runtime", "name": "cudaMemcpyAsync", "tid": 1, "ts": 103, "dur": 4, "args": {"correlation": 11}},
  {"cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "tid": 7, "ts": 140, "dur": 2, "args": {"correlation": 11}},
  {"cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 1, "ts": 110, "dur": 45},
  {"cat": "user_annotation", "name": "gpulint/sync /w/t.py:45", "tid": 1, "ts": 170, "dur": 0},
  {"cat": "cpu_op", "name": "aten::_to_copy", "tid": 1, "ts": 301, "dur": 40},
  {"cat": "cuda_runtime", "name": "cudaMemcpyAsync", "tid": 1, "ts": 302, "dur": 30, "args": {"correlation": 12}},
  {"cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "tid": 7, "ts": 320, "dur": 2, "args": {"correlation": 12}},
  {"cat": "user_annotation", "name": "gpulint/sync /w/t.py:47", "tid": 1, "ts": 345, "dur": 0},
  {"cat": "user_annotation", "name": "gpulint/sync /w/t.py:49", "tid": 1, "ts": 500, "dur": 30},
  {"cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "tid": 1, "ts": 505, "dur": 20},
  {"cat": "cpu_op", "name": "aten::is_nonzero", "tid": 1, "ts": 701, "dur": 30},
  {"cat": "cuda_runtime", "name": "cudaMemcpyAsync", "tid": 1, "ts": 703, "dur": 2, "args": {"correlation": 13}},
  {"cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 1, "ts": 706, "dur": 20},
  {"cat": "user_annotation", "name": "gpulint/sync /w/t.py:51", "tid": 1, "ts": 740, "dur": 0},
  {"cat": "user_annotation", "name": "gpulint/print /w/t.py:60", "tid": 1, "ts": 800, "dur": 80},
  {"cat": "cpu_op", "name": "aten::is_nonzero", "tid": 1, "ts": 801, "dur": 20},
  {"cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 1, "ts": 804, "dur": 11},
  {"cat": "user_annotation", "name": "gpulint/sync /w/t.py:60", "tid": 1, "ts": 825, "dur": 0}
]})json";

TEST(ProfileRecords, NamesWhatEachSynchronisingCallDid) {
  std::string error;
  const std::optional<Trace> trace = read_trace(kCauses, &error);
  ASSERT_TRUE(trace) << error;
  ASSERT_EQ(trace->waits.size(), 5u);
  EXPECT_EQ(trace->waits[0].cause, SyncCause::ValueRead);
  // The copy and the synchronize after it are one wait.
  EXPECT_DOUBLE_EQ(trace->waits[0].when.start, 103);
  EXPECT_DOUBLE_EQ(trace->waits[0].when.end, 155);
  EXPECT_EQ(trace->waits[1].cause, SyncCause::CopyToHost);
  EXPECT_EQ(trace->waits[2].cause, SyncCause::Synchronize);
  EXPECT_EQ(trace->waits[3].cause, SyncCause::Branch);
  EXPECT_DOUBLE_EQ(trace->waits[3].when.end, 726);
  // The value a print reads counts as the print.
  EXPECT_EQ(trace->waits[4].cause, SyncCause::Print);
  EXPECT_EQ(trace->waits[4].where.line, 60);
}

TEST(ProfileRecords, SaysWhatIsWrongWithWhatIsNotATrace) {
  std::string error;
  EXPECT_FALSE(read_trace("{not json", &error));
  EXPECT_EQ(error, "not JSON");
  EXPECT_FALSE(read_trace(R"({"traceEvents": 3})", &error));
  EXPECT_NE(error.find("no traceEvents"), std::string::npos);
  EXPECT_FALSE(read_trace(R"({"traceEvents": [{"cat": "kernel", "ts": 1, "dur": 2}]})", &error));
  EXPECT_NE(error.find("no step marks"), std::string::npos);
  EXPECT_FALSE(read_window(R"([1, 2])", &error));
  EXPECT_NE(error.find("not a window record"), std::string::npos);
}

TEST(ProfileRecords, ReadsTheWindowRecord) {
  std::string error;
  const std::optional<Window> window = read_window(
      R"({"rank": 1, "warmup": 10, "steps": 20, "torch": "2.11.0", "cuda": true,
          "syncs": [{"file": "/w/train.py", "line": 89, "function": "main", "count": 20}, 7],
          "error": null})",
      &error);
  ASSERT_TRUE(window) << error;
  EXPECT_EQ(window->rank, 1);
  EXPECT_EQ(window->steps, 20);
  EXPECT_TRUE(window->cuda);
  EXPECT_TRUE(window->error.empty());
  ASSERT_EQ(window->syncs.size(), 1u);
  EXPECT_EQ(window->syncs[0].where.line, 89);
  EXPECT_EQ(window->syncs[0].count, 20);
  EXPECT_TRUE(window->samples.empty());  // a record from before the sampler
}

// The sampled host lines, on the host's clock, and their placing on the trace's: the offset
// is the median of the step marks' (one mark's is off, as a descheduled thread's would be).
TEST(ProfileRecords, PlacesTheHostSamplesOnTheTracesClock) {
  std::string error;
  const std::optional<Window> window = read_window(
      R"({"rank": 0, "steps": 3, "syncs": [], "mark_us": [100, 200, 300],
          "sample_sites": [["/w/train.py", 40], ["/w/data.py", 7], 5],
          "samples": [[150, 0], [250, 1], [260, 2], [270, 9], [280, -1], "x"],
          "unprofiled_lines": [["/w/train.py", 41, 512.5], ["/w/train.py", "x", 1], 7]})",
      &error);
  ASSERT_TRUE(window) << error;
  ASSERT_EQ(window->unprofiled_lines.size(), 1u);
  EXPECT_EQ(window->unprofiled_lines[0].where, (SourceLine{"/w/train.py", 41}));
  EXPECT_DOUBLE_EQ(window->unprofiled_lines[0].us_per_step, 512.5);
  ASSERT_EQ(window->samples.size(), 2u);  // the rest name no valid site
  EXPECT_EQ(window->samples[1].where, (SourceLine{"/w/data.py", 7}));
  Trace trace;
  trace.steps = {{1100, 1200}, {1200, 1300}, {1340, 1400}};
  const std::vector<HostSample> placed = placed_samples(*window, trace);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_DOUBLE_EQ(placed[0].at_us, 1150);
  EXPECT_DOUBLE_EQ(placed[1].at_us, 1250);
  EXPECT_TRUE(placed_samples(Window{}, trace).empty());
}

}  // namespace
}  // namespace gpulint::profile

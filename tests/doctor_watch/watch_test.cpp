// `watch` without a GPU: the child's stdio, exit code and signals, the sampler on a scripted
// reading source, and the command line on a machine where NVML cannot be loaded.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "machine/process.h"
#include "watch/sampler.h"

namespace gpulint::system {
namespace {

using std::chrono::milliseconds;

bool nvml_present() {
  void* handle = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle) ::dlclose(handle);
  return handle != nullptr;
}

TEST(Process, ReturnsTheChildsExitCode) {
  EXPECT_EQ(run_inheriting_stdio({"sh", "-c", "exit 7"}).code, 7);
  EXPECT_EQ(run_inheriting_stdio({"true"}).code, 0);
}

TEST(Process, KilledBySignalIs128PlusSignal) {
  EXPECT_EQ(run_inheriting_stdio({"sh", "-c", "kill -KILL $$"}).code, 128 + SIGKILL);
}

TEST(Process, MissingCommandIs127WithItsName) {
  const ChildExit child = run_inheriting_stdio({"gpulint-no-such-command"});
  EXPECT_EQ(child.code, 127);
  EXPECT_NE(child.error.find("cannot run 'gpulint-no-such-command'"), std::string::npos);
}

TEST(Process, CapturesOutputApart) {
  const CapturedRun run =
      run_capturing({"sh", "-c", "echo out; echo err >&2; exit 4"}, milliseconds(10000));
  EXPECT_EQ(run.code, 4);
  EXPECT_EQ(run.out, "out\n");
  EXPECT_EQ(run.err, "err\n");
  EXPECT_FALSE(run.timed_out);
}

TEST(Process, CaptureStopsAtItsTimeLimit) {
  const auto start = std::chrono::steady_clock::now();
  const CapturedRun run = run_capturing({"sleep", "30"}, milliseconds(200));
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.code, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

class ScriptedSource : public ReadingSource {
 public:
  GpuReading read(unsigned index) const override {
    GpuReading r;
    r.utilization_percent = 40.0 + index;
    r.memory_used_mib = 1024;
    return r;  // no clock reading: it must be recorded as missing
  }
};

TEST(Sampler, SamplesEveryGpuOnAFixedGrid) {
  ScriptedSource source;
  std::vector<GpuSeries> series(2);
  series[1].index = 1;
  Sampler sampler(source, series, milliseconds(10));
  sampler.start();
  std::this_thread::sleep_for(milliseconds(200));
  const Trace trace = sampler.stop();
  EXPECT_EQ(trace.interval_ms, 10);
  ASSERT_GE(trace.t_ms.size(), 5u);
  // The first reading comes at once, not an interval in (6.6 ms read once on a machine busy
  // with a build beside the tests: the bound is the interval, not a guess at the start-up).
  EXPECT_LT(trace.t_ms.front(), 10.0);
  for (size_t i = 1; i < trace.t_ms.size(); ++i) EXPECT_GT(trace.t_ms[i], trace.t_ms[i - 1]);
  ASSERT_EQ(trace.gpus.size(), 2u);
  for (const GpuSeries& gpu : trace.gpus) {
    ASSERT_EQ(gpu.utilization_percent.size(), trace.t_ms.size());
    EXPECT_EQ(gpu.utilization_percent.front(), 40.0 + gpu.index);
    EXPECT_TRUE(std::isnan(gpu.sm_clock_mhz.front()));
  }
}

// Runs the gpulint binary with stdout and stderr captured.
CapturedRun gpulint(std::vector<std::string> args) {
  args.insert(args.begin(), GPULINT_BINARY);
  return run_capturing(args, milliseconds(30000));
}

TEST(WatchCli, RunsTheCommandAndReturnsItsCodeWithoutAGpu) {
  const CapturedRun run = gpulint({"watch", "--", "sh", "-c", "echo from-the-child; exit 5"});
  EXPECT_EQ(run.code, 5) << run.err;
  EXPECT_EQ(run.out, "from-the-child\n");
  if (nvml_present()) GTEST_SKIP() << "NVML is installed here: the no-GPU warning cannot show";
  EXPECT_NE(run.err.find("nothing can be sampled"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("libnvidia-ml.so.1"), std::string::npos) << run.err;
}

TEST(WatchCli, TheCommandKeepsItsOwnOptions) {
  const CapturedRun run =
      gpulint({"watch", "sh", "-c", "echo \"$0\" \"$1\"", "--interval-ms", "x"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "--interval-ms x\n");
}

TEST(WatchCli, WarnsThatOutputsAreNotWrittenWithoutAGpu) {
  if (nvml_present()) GTEST_SKIP() << "NVML is installed here: a trace would be written";
  const CapturedRun run = gpulint({"watch", "--output", "/nonexistent/t.json", "--", "true"});
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.err.find("--output and --plot write nothing"), std::string::npos) << run.err;
}

TEST(WatchCli, NoCommandIsAUsageError) { EXPECT_EQ(gpulint({"watch"}).code, 2); }

TEST(WatchCli, MissingCommandIs127) {
  const CapturedRun run = gpulint({"watch", "--", "gpulint-no-such-command"});
  EXPECT_EQ(run.code, 127);
  EXPECT_NE(run.err.find("cannot run 'gpulint-no-such-command'"), std::string::npos) << run.err;
}

// The child turns the signal into exit 42; gpulint must pass it on (not die of it, leaving the
// child running alone) and return that. SIGHUP is what a closed terminal or ssh sends.
class WatchForwards : public ::testing::TestWithParam<int> {};

TEST_P(WatchForwards, TheSignalToTheCommand) {
  const int signal = GetParam();
  const std::string trap = "trap 'exit 42' " + std::string(sigabbrev_np(signal)) +
                           "; echo ready; while :; do sleep 0.05; done";
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::execl(GPULINT_BINARY, GPULINT_BINARY, "watch", "--", "sh", "-c", trap.c_str(), nullptr);
    ::_exit(99);
  }
  ::close(out[1]);
  char ready[6] = {};
  ASSERT_EQ(::read(out[0], ready, 6), 6);  // the child has set its trap
  ::close(out[0]);
  ASSERT_EQ(::kill(pid, signal), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "gpulint died of the signal instead of passing it on";
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

INSTANTIATE_TEST_SUITE_P(WatchCli, WatchForwards,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

}  // namespace
}  // namespace gpulint::system

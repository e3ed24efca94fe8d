// `gpulint profile`'s ways out where nothing can be profiled: the command's own output and exit
// code always, one line that says why, and nothing left behind. Python runs the real shim.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "machine/process.h"
#include "profile/run_record.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr milliseconds kLimit{60000};

// A scratch directory that is also the run's TMPDIR, so what the run leaves there shows.
class ProfileCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpulint-profile-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  system::CapturedRun profile(const std::vector<std::string>& command) {
    std::vector<std::string> argv = {"env", "TMPDIR=" + dir_.string(), GPULINT_BINARY, "profile",
                                     "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return system::run_capturing(argv, kLimit);
  }

  bool python_present() {
    return system::run_capturing({"python3", "-c", "pass"}, kLimit).code == 0;
  }

  fs::path dir_;
};

TEST_F(ProfileCommand, AFailingCommandKeepsItsExitCode) {
  const system::CapturedRun run = profile({"sh", "-c", "echo hello; exit 3"});
  EXPECT_EQ(run.code, 3);
  EXPECT_EQ(run.out, "hello\n");
  EXPECT_NE(run.err.find("exited with 3 before torch was imported"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::is_empty(dir_)) << "the run's private directory was left behind";
}

TEST_F(ProfileCommand, AMissingCommandIs127) {
  const system::CapturedRun run = profile({"gpulint-no-such-command"});
  EXPECT_EQ(run.code, 127);
  EXPECT_NE(run.err.find("cannot run 'gpulint-no-such-command'"), std::string::npos) << run.err;
}

TEST_F(ProfileCommand, NoCommandIsAUsageError) {
  EXPECT_EQ(system::run_capturing({GPULINT_BINARY, "profile"}, kLimit).code, 2);
}

TEST_F(ProfileCommand, APythonProgramWithoutTorchRunsAsItWould) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const system::CapturedRun run = profile({"python3", "-c", "print('out'); raise SystemExit(0)"});
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, "out\n");
  EXPECT_NE(run.err.find("never imported torch"), std::string::npos) << run.err;
}

// The shim takes the place of the environment's own sitecustomize, and then imports it.
TEST_F(ProfileCommand, TheUsersOwnSitecustomizeStillRuns) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const fs::path site = dir_ / "site";
  fs::create_directories(site);
  std::ofstream(site / "sitecustomize.py") << "print('user site')\n";
  const system::CapturedRun run =
      system::run_capturing({"env", "PYTHONPATH=" + site.string(), GPULINT_BINARY, "profile", "--",
                             "python3", "-c", "print('main')"},
                            kLimit);
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, "user site\nmain\n");
}

// The shim on a stand-in for torch (tests/profile/stub_torch): the window, the marks at the
// user's lines, and its hooks taken off afterwards.
system::CapturedRun profile_stub(const std::vector<std::string>& options,
                                 const std::vector<std::string>& script_args = {"8"}) {
  std::vector<std::string> argv = {
      "env",          "PYTHONPATH=" + std::string(GPULINT_SOURCE_DIR) + "/tests/profile/stub_torch",
      GPULINT_BINARY, "profile",
      "--warmup",     "2",
      "--steps",      "3"};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const char* arg :
       {"--", "python3", GPULINT_SOURCE_DIR "/tests/profile/stub_torch/train_stub.py"}) {
    argv.push_back(arg);
  }
  argv.insert(argv.end(), script_args.begin(), script_args.end());
  return system::run_capturing(argv, kLimit);
}

TEST_F(ProfileCommand, TheShimMarksEachLineThatWaits) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const system::CapturedRun run = profile_stub({});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("3 steps profiled after 2 of warm-up"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("train_stub.py:11 data 1.0x a step"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("train_stub.py:18 sync 1.0x a step"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("train_stub.py:19 sync 1.0x a step"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("these 2 lines synchronise the same steps"), std::string::npos);
  // Lines no rule reported, as findings of the rules whose patterns they are.
  EXPECT_NE(run.out.find("train_stub.py:18:5: GL101"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("train_stub.py:19:5: GL103"), std::string::npos) << run.out;
  // After the window the program runs unwrapped.
  EXPECT_NE(run.out.find("wrapped after the run: synchronize backward\n"), std::string::npos)
      << run.out;
  // The warm-up's steps, timed without the profiler, are what savings are measured against.
  EXPECT_NE(run.err.find("without the profiler the step took"), std::string::npos) << run.err;
}

// The host's own work, at no marked line, is found by sampling: the stub sleeps 20 ms a step
// at its line 12 while the GPU has nothing to do.
TEST_F(ProfileCommand, TheHostsOwnWorkIsFoundAtItsLineBySampling) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const system::CapturedRun run = profile_stub({}, {"8", "20"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("the host's own work while the GPU idled, by line"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("train_stub.py:12"), std::string::npos) << run.err;
}

// A finding whose pattern is the host's own work (GL503: a layer built every step) is observed
// where the host was sampled at its line while the GPU idled.
TEST_F(ProfileCommand, AFindingAtASampledHostLineIsObserved) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const system::CapturedRun run = system::run_capturing(
      {"env", "PYTHONPATH=" + std::string(GPULINT_SOURCE_DIR) + "/tests/profile/stub_torch",
       GPULINT_BINARY, "profile", "--warmup", "2", "--steps", "3", "--format", "json", "--",
       "python3", GPULINT_SOURCE_DIR "/tests/profile/stub_torch/layer_stub.py", "8"},
      kLimit);
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json findings = nlohmann::json::parse(run.out);
  ASSERT_EQ(findings["diagnostics"].size(), 1u) << run.out;
  const nlohmann::json& d = findings["diagnostics"][0];
  EXPECT_EQ(d["code"], "GL503");
  const nlohmann::json& observed = d["observed"];
  EXPECT_TRUE(observed["seen"].get<bool>()) << run.out;
  EXPECT_GE(observed["samples"].get<int>(), 5);
  // The stub's layer takes the host 20 ms a step.
  EXPECT_GT(observed["gpu_idle_ms_per_step"].get<double>(), 10);
  EXPECT_FALSE(observed.contains("saving_ms_per_step"));  // not predicted for sampled work
  EXPECT_NE(observed["summary"].get<std::string>().find("the host's own work at this line"),
            std::string::npos);
}

// A program with no optimizer: its steps end at backward calls, and with no backward either,
// at its batches.
TEST_F(ProfileCommand, StepsEndAtBackwardOrAtTheNextBatchWithoutAnOptimizer) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  for (const auto& [ends_at, phrase] : {std::pair{"backward", "a step ends at each backward call"},
                                        std::pair{"batch", "a step ends at each next batch"}}) {
    const system::CapturedRun run = profile_stub({}, {"8", "0", ends_at});
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.err.find("3 steps profiled after 2 of warm-up"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(phrase), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("train_stub.py:18 sync 1.0x a step"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("wrapped after the run: synchronize backward\n"), std::string::npos)
        << run.out;
  }
}

TEST_F(ProfileCommand, StopEndsTheProgramAfterTheWindow) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const system::CapturedRun run = profile_stub({"--stop", "--output-format", "json"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.find("wrapped after the run"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"observed\": {"), std::string::npos) << run.out;
}

TEST_F(ProfileCommand, PlotWritesTheTimelineAndTheCommandStillAnswers) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const fs::path svg = dir_ / "steps.svg";
  const system::CapturedRun run = profile_stub({"--plot", svg.string()});
  ASSERT_EQ(run.code, 0) << run.err;
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text.starts_with("<svg")) << text;
  EXPECT_NE(text.find("train_stub.py:18 (a tensor's value read on the host)"), std::string::npos)
      << text;
  // A place that cannot be written: an error, after the command has run and been reported.
  const system::CapturedRun unwritable = profile_stub({"--plot", "/proc/gpulint/steps.svg"});
  EXPECT_EQ(unwritable.code, 2) << unwritable.err;
  EXPECT_NE(unwritable.err.find("3 steps profiled"), std::string::npos) << unwritable.err;
}

// torchrun's ranks each leave a record; the slowest one is named and joined.
TEST_F(ProfileCommand, EachRankIsReportedAndTheSlowestNamed) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const std::string script = GPULINT_SOURCE_DIR "/tests/profile/stub_torch/train_stub.py";
  const system::CapturedRun run = system::run_capturing(
      {"env", "PYTHONPATH=" + std::string(GPULINT_SOURCE_DIR) + "/tests/profile/stub_torch",
       GPULINT_BINARY, "profile", "--warmup", "2", "--steps", "3", "--", "sh", "-c",
       "RANK=0 python3 " + script + " 8 && RANK=1 python3 " + script + " 8 5"},
      kLimit);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("rank 0: 3 steps profiled"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("rank 1: 3 steps profiled"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("slowest: rank 1 at"), std::string::npos) << run.err;
}

// The profiler starts a step before the window, so the GPU work the window's first step runs,
// launched in the step before it, is in the trace.
TEST_F(ProfileCommand, TheProfilerStartsAStepAheadOfTheWindow) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const fs::path kept = dir_ / "kept";
  ASSERT_EQ(profile_stub({"--keep", kept.string()}).code, 0);
  std::ifstream in(kept / "trace-rank0.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string error;
  const std::optional<profile::Trace> trace = profile::read_trace(text, &error);
  ASSERT_TRUE(trace) << error;
  ASSERT_FALSE(trace->gpu.empty());
  EXPECT_LT(trace->gpu.front().start, trace->steps.front().start);
  EXPECT_EQ(trace->steps.size(), 3u);
}

// The warm-up's steps are sampled too, without the profiler: the record says how long the host
// spent at each line there (the stub sleeps 20 ms a step at its line 12).
TEST_F(ProfileCommand, TheWarmUpsHostTimeIsSampledByLine) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const fs::path kept = dir_ / "kept";
  ASSERT_EQ(profile_stub({"--keep", kept.string()}, {"8", "20"}).code, 0);
  std::ifstream in(kept / "window-rank0.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string error;
  const std::optional<profile::Window> window = profile::read_window(text, &error);
  ASSERT_TRUE(window) << error;
  double at_sleep = 0;
  for (const profile::LineTime& at : window->unprofiled_lines) {
    if (at.where.line == 12) at_sleep = at.us_per_step;
  }
  // Each sample stands for 1.5 ms at most: on a machine busy enough to stretch the sampler's
  // own 1 ms sleeps past that, the line reads short.
  EXPECT_GT(at_sleep, 10000) << text;
  ASSERT_TRUE(window->unprofiled_step_us);
  EXPECT_LE(at_sleep, *window->unprofiled_step_us * 1.05) << text;
}

// torchrun's launcher imports torch too, takes no step, and has no RANK: it must not write over
// rank 0's record when it exits after its workers (seen on the H200).
TEST_F(ProfileCommand, ALauncherThatImportsTorchLeavesRankZerosRecord) {
  if (!python_present()) GTEST_SKIP() << "python3 is not installed";
  const std::string script = GPULINT_SOURCE_DIR "/tests/profile/stub_torch/train_stub.py";
  const std::string launcher =
      "import os, subprocess, sys, torch\n"
      "for rank in ('0', '1'):\n"
      "    subprocess.run([sys.executable, '" +
      script + "', '8'], env=dict(os.environ, RANK=rank), check=True)\n";
  const system::CapturedRun run = system::run_capturing(
      {"env", "PYTHONPATH=" + std::string(GPULINT_SOURCE_DIR) + "/tests/profile/stub_torch",
       GPULINT_BINARY, "profile", "--warmup", "2", "--steps", "3", "--", "python3", "-c", launcher},
      kLimit);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("rank 0: 3 steps profiled"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("rank 1: 3 steps profiled"), std::string::npos) << run.err;
}

// End to end on a GPU: the four-sync fixture's lines are each observed, and act together.
TEST_F(ProfileCommand, OnAGpuEachSynchronisingLineIsObserved) {
  const system::CapturedRun probe = system::run_capturing(
      {"python3", "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"},
      kLimit);
  if (probe.code != 0) GTEST_SKIP() << "needs python3 with torch and a CUDA GPU";
  const system::CapturedRun run = system::run_capturing(
      {GPULINT_BINARY, "profile", "--stop", "--steps", "5", "--warmup", "3", "--", "python3",
       std::string(GPULINT_SOURCE_DIR) + "/fixtures/profile/four_syncs.py"},
      kLimit);
  EXPECT_EQ(run.code, 0) << run.err;
  for (const char* line :
       {"four_syncs.py:45", "four_syncs.py:47", "four_syncs.py:49", "four_syncs.py:51"}) {
    EXPECT_NE(run.err.find(line), std::string::npos) << line << "\n" << run.err;
  }
  EXPECT_NE(run.err.find("these 4 lines synchronise the same steps"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("GL101"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("observed: a tensor's value read on the host"), std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace gpulint

// `gpulint profile`'s ways out where nothing can be profiled: the command's own output and exit
// code always, one line that says why, and nothing left behind. Python runs the real shim.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "machine/process.h"

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

}  // namespace
}  // namespace gpulint

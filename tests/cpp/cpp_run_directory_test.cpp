// The directory a run keeps its shared PCHs in: a run that is killed leaves it behind, and a
// later run removes it; a live run's directory is never removed.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analyzer/cpp/clang/run_directory.h"
#include "tests/cli_harness.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> run_directories(const fs::path& temp) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(temp)) {
    if (entry.path().filename().string().starts_with("gpulint-preamble-"))
      found.push_back(entry.path());
  }
  return found;
}

// Older than any run takes to lock its directory.
void age(const fs::path& dir) {
  fs::last_write_time(dir, fs::file_time_type::clock::now() - std::chrono::hours(1));
}

class CppRunDirectory : public testing::GpulintRun {
 protected:
  fs::path temp() const { return root_ / "tmp"; }
  void SetUp() override {
    testing::GpulintRun::SetUp();
    fs::create_directories(temp());
  }
};

TEST_F(CppRunDirectory, AKilledRunsDirectoryIsRemovedByALaterRun) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpp::RunDirectory dir(temp());
    std::ofstream(dir.path() / "preamble-1.pch") << "pch";
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::vector<fs::path> left = run_directories(temp());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(fs::exists(left.front() / "preamble-1.pch"));
  cpp::remove_ended_run_directories(temp());
  EXPECT_TRUE(run_directories(temp()).empty());
}

// However old its directory is, a run that still lives keeps it; once it has died (without
// removing it), the next sweep removes it.
TEST_F(CppRunDirectory, ALiveRunsDirectoryIsKeptUntilItEnds) {
  int ready[2], finish[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(finish), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    close(finish[1]);
    cpp::RunDirectory dir(temp());
    char c = dir.path().empty() ? 'n' : 'y';
    if (::write(ready[1], &c, 1) != 1) _exit(1);
    // Dies without the destructor, as a crash would, once the parent has swept.
    _exit(read(finish[0], &c, 1) == 0 ? 0 : 1);
  }
  close(ready[1]);
  close(finish[0]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  const std::vector<fs::path> live = run_directories(temp());
  ASSERT_EQ(live.size(), 1u);
  age(live.front());
  cpp::remove_ended_run_directories(temp());
  EXPECT_TRUE(fs::exists(live.front()));
  cpp::RunDirectory own(temp());  // another live run, in this process, sweeps too
  EXPECT_TRUE(fs::exists(live.front()));
  close(finish[1]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  cpp::remove_ended_run_directories(temp());
  EXPECT_FALSE(fs::exists(live.front()));
  EXPECT_TRUE(fs::exists(own.path()));
}

// Without a lock file (a run killed before it took its lock, or a gpulint from before the lock)
// a directory goes only once it is old and no process has its pid.
TEST_F(CppRunDirectory, ALocklessDirectoryGoesOnlyWhenOldAndItsPidIsGone) {
  const pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  auto make = [&](const std::string& name, bool old) {
    const fs::path dir = temp() / name;
    fs::create_directories(dir);
    std::ofstream(dir / "preamble-1.pch") << "pch";
    if (old) age(dir);
    return dir;
  };
  const std::string dead = std::to_string(gone), live = std::to_string(getpid());
  const fs::path ended = make("gpulint-preamble-" + dead + "-aaaaaa", true);
  const fs::path ended_old_style = make("gpulint-preamble-" + dead, true);
  const fs::path locking_now = make("gpulint-preamble-" + dead + "-bbbbbb", false);
  const fs::path live_old_style = make("gpulint-preamble-" + live, true);
  const fs::path unrelated = make("gpulint-cpp-" + dead, true);
  cpp::remove_ended_run_directories(temp());
  EXPECT_FALSE(fs::exists(ended));
  EXPECT_FALSE(fs::exists(ended_old_style));
  EXPECT_TRUE(fs::exists(locking_now));
  EXPECT_TRUE(fs::exists(live_old_style));
  EXPECT_TRUE(fs::exists(unrelated));
}

// End to end: a gpulint run that builds a shared PCH removes what a killed run left in TMPDIR,
// and leaves nothing of its own.
TEST_F(CppRunDirectory, ARunSweepsTheTempDirectoryAndLeavesNothing) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpp::RunDirectory dir(temp());
    raise(SIGKILL);
  }
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  ASSERT_EQ(run_directories(temp()).size(), 1u);

  const std::string body =
      testing::slurp(fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/clang/resolved_names.cpp");
  write("a.cpp", body);
  write("b.cpp", body);
  const std::string include = (fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/include").string();
  std::string database = "[";
  for (const char* name : {"a.cpp", "b.cpp"}) {
    const std::string file = (work_ / name).string();
    database += std::string(database.size() > 1 ? "," : "") + "{\"directory\": \"" +
                work_.string() + "\", \"file\": \"" + file +
                "\", \"command\": \"g++ -std=c++17 -I" + include + " -c " + file + "\"}";
  }
  write("compile_commands.json", database + "]");
  const testing::Result result = run({"--format", "json", "-p", work_.string(), "a.cpp", "b.cpp"},
                                     "TMPDIR=" + testing::quote(temp().string()));
  ASSERT_LT(result.status, 2) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  // Clang ran on both files: `synchronize()` after `using namespace` is named as it resolves.
  std::set<std::string> resolved;
  for (const auto& d : report["diagnostics"]) {
    EXPECT_NE(d["code"], "GL000") << d["message"];
    if (d["message"].get<std::string>().find("torch::cuda::synchronize()") != std::string::npos)
      resolved.insert(d["path"].get<std::string>());
  }
  EXPECT_EQ(resolved.size(), 2u);
  EXPECT_TRUE(run_directories(temp()).empty());
}

}  // namespace
}  // namespace gpulint

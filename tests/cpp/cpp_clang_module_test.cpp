// The Clang front end is a module gpulint loads only for a C++ file with a compile database
// (analyzer/cpp/clang/module.h), and libgit2 a library it loads only to walk folders or print a
// diff. The dynamic loader says what it loads (LD_DEBUG=libs).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli_harness.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

constexpr char kLoadsClang[] = "libgpulint-clang.so";

class ClangModule : public testing::GpulintRun {
 protected:
  // A.cpp that calls torch::cuda::synchronize() in a loop, through `using namespace`.
  void write_cpp(bool with_database) {
    write("a.cpp",
          testing::slurp(fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/clang/resolved_names.cpp"));
    if (!with_database) return;
    const std::string include = (fs::path(GPULINT_SOURCE_DIR) / "fixtures/cpp/include").string();
    const std::string file = (work_ / "a.cpp").string();
    write("compile_commands.json", "[{\"directory\": \"" + work_.string() + "\", \"file\": \"" +
                                       file + "\", \"command\": \"g++ -std=c++17 -I" + include +
                                       " -c " + file + "\"}]");
  }
};

TEST_F(ClangModule, APythonRunAndVersionNeverLoadIt) {
  write("train.py", testing::kTraining);
  const testing::Result lint = run({"--no-cache", "train.py"}, "LD_DEBUG=libs");
  EXPECT_EQ(lint.status, 1);
  EXPECT_EQ(lint.err.find(kLoadsClang), std::string::npos);
  EXPECT_EQ(lint.err.find("libLLVM"), std::string::npos);
  // Nor libgit2 (analyzer/core/libgit2.h): no folder is walked.
  EXPECT_EQ(lint.err.find("libgit2"), std::string::npos);
  const testing::Result version = run({"--version"}, "LD_DEBUG=libs");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.err.find("libLLVM"), std::string::npos);
}

TEST_F(ClangModule, ACppFileWithoutADatabaseDoesNotLoadIt) {
  write_cpp(false);
  const testing::Result result = run({"--no-cache", "a.cpp"}, "LD_DEBUG=libs");
  EXPECT_LT(result.status, 2) << result.err;
  EXPECT_EQ(result.err.find(kLoadsClang), std::string::npos);
}

TEST_F(ClangModule, ACppFileWithADatabaseLoadsItAndClangResolves) {
  write_cpp(true);
  const testing::Result result = run({"--no-cache", "--format", "json", "a.cpp"}, "LD_DEBUG=libs");
  ASSERT_EQ(result.status, 1) << result.err;
  EXPECT_NE(result.err.find(kLoadsClang), std::string::npos);
  EXPECT_NE(result.out.find("torch::cuda::synchronize()"), std::string::npos) << result.out;
  EXPECT_EQ(result.err.find("Clang: "), std::string::npos);  // no progress off a terminal
}

// On a terminal (script(1) gives it one), a parse through LibTorch's headers, seconds long,
// shows as a line rewritten in place, cleared before the report.
TEST_F(ClangModule, ALongParseShowsProgressOnATerminal) {
  const fs::path torch = "/usr/include/torch/csrc/api/include/torch/torch.h";
  if (!fs::exists(torch)) GTEST_SKIP() << "Debian's libtorch-dev is not installed";
  const fs::path build = root_ / "build";
  const std::string configure = "cmake -S " +
                                testing::quote(GPULINT_SOURCE_DIR "/fixtures/cpp/libtorch") +
                                " -B " + testing::quote(build.string()) + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(configure.c_str()), 0) << configure;
  const std::string mnist = GPULINT_SOURCE_DIR "/fixtures/cpp/realistic/mnist.cpp";
  const std::string inner = testing::quote(GPULINT_BINARY) + " --no-cache -p " +
                            testing::quote(build.string()) + " " + testing::quote(mnist);
  const std::string command = "script -qec " + testing::quote(inner) + " /dev/null >" +
                              testing::quote((root_ / "tty").string()) + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()) >> 8, 1) << testing::slurp(root_ / "tty");
  const std::string tty = testing::slurp(root_ / "tty");
  const size_t shown = tty.find("Clang: " + mnist + " (");
  ASSERT_NE(shown, std::string::npos) << tty;
  // The last thing written to the progress line clears it, and the report follows.
  const size_t cleared = tty.rfind("\r\x1b[K");
  ASSERT_NE(cleared, std::string::npos);
  EXPECT_GT(cleared, shown);
  EXPECT_EQ(tty.find("Clang: ", cleared), std::string::npos);
  EXPECT_NE(tty.find("GL", cleared), std::string::npos) << tty.substr(cleared);
}

// A module beside gpulint that does not load is reported, and the file is still analysed.
TEST_F(ClangModule, OneThatWillNotLoadIsReportedAndSyntaxGoesOn) {
  write_cpp(true);
  const fs::path bin = root_ / "bin";
  fs::create_directories(bin);
  fs::copy_file(GPULINT_BINARY, bin / "gpulint");
  std::ofstream(bin / kLoadsClang) << "not a shared object";
  const std::string command =
      "cd " + testing::quote(work_.string()) + " && " + testing::quote((bin / "gpulint").string()) +
      " --no-cache a.cpp >/dev/null 2>" + testing::quote((root_ / "err").string());
  const int raw = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(raw));
  EXPECT_EQ(WEXITSTATUS(raw), 1);  // syntax still finds the synchronize in the loop
  const std::string err = testing::slurp(root_ / "err");
  EXPECT_NE(err.find("analysed by syntax alone: the Clang front end could not be loaded"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace gpulint

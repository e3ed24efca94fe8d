// A fixture that runs the real gpulint binary in a throwaway work directory, with stdout and
// stderr captured apart; shared by the CLI and config tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gpulint::testing {

// A training loop with one finding of note: `.item()` every step (GL101, line 12, column 13).
inline constexpr char kTraining[] = R"(import torch
from torch import nn

model = nn.Linear(10, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(32, 10, device="cuda")
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total = loss.item()
)";

namespace fs = std::filesystem;

struct Result {
  int status = -1;  // the exit status; 124 and above mean a timeout or a signal
  std::string out;
  std::string err;
};

inline std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class GpulintRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = (fs::temp_directory_path() / "gpulint-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(root.data()), nullptr);
    root_ = root;
    work_ = root_ / "work";
    fs::create_directories(work_);
  }

  void TearDown() override {
    // chmod 000 files must be readable again for remove_all to get rid of them.
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      if (entry.is_symlink()) continue;  // a link to nothing, or a loop: nothing to chmod
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
    }
    fs::remove_all(root_);
  }

  void write(const std::string& name, const std::string& bytes) {
    const fs::path path = work_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // Runs gpulint in the work directory, with stdout and stderr captured apart, and fails the
  // test on a timeout or a signal whatever the test expects next. Standard input is empty, or
  // the file `stdin_file` (relative to the work directory).
  Result run(const std::vector<std::string>& args, const std::string& env = "",
             const std::string& stdin_file = "") {
    std::string command =
        "cd " + quote(work_.string()) + " && " + env + " timeout -k 5 60 " + quote(GPULINT_BINARY);
    for (const std::string& arg : args) {
      command += ' ';
      command += quote(arg);
    }
    command += " <" + (stdin_file.empty() ? std::string("/dev/null") : quote(stdin_file));
    command +=
        " >" + quote((root_ / "stdout").string()) + " 2>" + quote((root_ / "stderr").string());
    const int raw = std::system(command.c_str());
    Result result;
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    result.out = slurp(root_ / "stdout");
    result.err = slurp(root_ / "stderr");
    // 0-3 are the contract's exit codes (3: no usable GPU, from verify).
    EXPECT_TRUE(result.status >= 0 && result.status <= 3)
        << "gpulint crashed or hung (status " << result.status << ") on:" << command
        << "\nstderr:\n"
        << result.err;
    return result;
  }

  static nlohmann::json parse_json(const Result& result) {
    try {
      return nlohmann::json::parse(result.out);
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "not JSON: " << e.what() << "\n" << result.out.substr(0, 2000);
      return {};
    }
  }

  static std::set<std::string> codes(const nlohmann::json& report) {
    std::set<std::string> out;
    for (const auto& d : report["diagnostics"]) out.insert(d["code"].get<std::string>());
    return out;
  }

  fs::path root_;
  fs::path work_;
};

}  // namespace gpulint::testing

// Config files ([tool.gpulint] in pyproject.toml, .gpulint.toml, --config), ignore files
// (.gitignore, .ignore, --no-ignore) and --show-settings, through the real binary.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "tests/cli_harness.h"

namespace {

using gpulint::testing::Result;

// GL101 (.item() in the step loop) and GL104 (print every step) on known lines.
const char kTraining[] = R"(import torch

model = torch.nn.Linear(10, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(32, 10, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())
)";

class Config : public gpulint::testing::GpulintRun {
 protected:
  // (path, code) of every finding of a JSON run.
  std::set<std::pair<std::string, std::string>> findings(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"check", "--format", "json"};
    full.insert(full.end(), args.begin(), args.end());
    const Result r = run(full);
    EXPECT_LE(r.status, 1) << r.out << r.err;
    std::set<std::pair<std::string, std::string>> out;
    const nlohmann::json report = parse_json(r);
    for (const auto& d : report["diagnostics"]) {
      out.emplace(d["path"].get<std::string>(), d["code"].get<std::string>());
    }
    return out;
  }
};

using Findings = std::set<std::pair<std::string, std::string>>;

TEST_F(Config, PyprojectSelectsAndIgnores) {
  write("train.py", kTraining);
  EXPECT_EQ(findings({"train.py"}), (Findings{{"train.py", "GL101"}, {"train.py", "GL104"}}));
  write("pyproject.toml", "[tool.gpulint]\nignore = [\"GL104\"]\n");
  EXPECT_EQ(findings({"train.py"}), (Findings{{"train.py", "GL101"}}));
  // The command line has the last word.
  EXPECT_EQ(findings({"--select", "GL104", "train.py"}), (Findings{{"train.py", "GL104"}}));
}

TEST_F(Config, PyprojectWithoutToolTableIsNotAConfig) {
  write("sub/pyproject.toml", "[project]\nname = \"x\"\n");
  write(".gpulint.toml", "ignore = [\"GL101\"]\n");
  write("sub/train.py", kTraining);
  // The search goes on upward past a pyproject.toml that has no [tool.gpulint].
  EXPECT_EQ(findings({"sub/train.py"}), (Findings{{"sub/train.py", "GL104"}}));
}

TEST_F(Config, NearestConfigWinsPerFile) {
  write(".gpulint.toml", "ignore = [\"GL101\"]\n");
  write("a/.gpulint.toml", "ignore = [\"GL104\"]\n");
  write("a/train.py", kTraining);
  write("b/train.py", kTraining);
  EXPECT_EQ(findings({"."}), (Findings{{"a/train.py", "GL101"}, {"b/train.py", "GL104"}}));
}

TEST_F(Config, ExtendSelectTurnsOnOptInRules) {
  write("train.py", kTraining);
  write(".gpulint.toml", "extend-select = [\"GL001\"]\n");
  const Result r = run({"--show-settings", "train.py"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("extend-select: [GL001]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" GL001 "), std::string::npos) << r.out;
}

TEST_F(Config, PerFileIgnoresAndExcludes) {
  write("train.py", kTraining);
  write("scripts/train.py", kTraining);
  write("vendor/train.py", kTraining);
  write(".gpulint.toml",
        "extend-exclude = [\"vendor\"]\n"
        "[per-file-ignores]\n\"scripts/*.py\" = [\"GL1\"]\n");
  EXPECT_EQ(findings({"."}), (Findings{{"train.py", "GL101"}, {"train.py", "GL104"}}));
  // A file named on the command line is linted even when excluded, unless --force-exclude.
  EXPECT_EQ(findings({"vendor/train.py"}).size(), 2u);
  EXPECT_TRUE(findings({"--force-exclude", "vendor/train.py"}).empty());
}

TEST_F(Config, TestFilesAreNotJudgedAsTrainingUnlessAsked) {
  const std::string fp32 = R"(import torch

model = torch.nn.Linear(10, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    loss = model(torch.randn(32, 10, device="cuda")).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
)";
  write("train.py", fp32);
  write("tests/test_train.py", fp32);
  write("model_test.py", fp32);
  EXPECT_EQ(findings({"."}), (Findings{{"train.py", "GL401"}}));
  write(".gpulint.toml", "[rules]\ntest-code = true\n");
  EXPECT_EQ(findings({"."}), (Findings{{"train.py", "GL401"},
                                       {"tests/test_train.py", "GL401"},
                                       {"model_test.py", "GL401"}}));
}

TEST_F(Config, ExplicitConfigReplacesDiscovery) {
  write("train.py", kTraining);
  write(".gpulint.toml", "ignore = [\"GL101\"]\n");
  write("ci.toml", "[tool.gpulint]\nignore = [\"GL104\"]\n");
  EXPECT_EQ(findings({"--config", "ci.toml", "train.py"}), (Findings{{"train.py", "GL101"}}));
}

TEST_F(Config, MalformedConfigNamesFileLineAndProblem) {
  write("train.py", kTraining);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"select = \"GL1\n", ".gpulint.toml:1:"},
      {"select = 3\n", ".gpulint.toml:1:10: `select` must be an array of strings"},
      {"\n\nselec = [\"GL1\"]\n", ".gpulint.toml:3:1: unknown key `selec`"},
      {"select = [\"GL999\"]\n", "GL999"},
      {"[rules]\nsmall-batch-threshold = \"big\"\n", ".gpulint.toml:2:"},
  };
  for (const auto& [text, message] : cases) {
    write(".gpulint.toml", text);
    const Result r = run({"train.py"});
    EXPECT_EQ(r.status, 2) << text << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << text << "\n" << r.err;
    EXPECT_EQ(r.out, "") << text;
  }
  const Result missing = run({"--config", "nope.toml", "train.py"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nope.toml"), std::string::npos) << missing.err;
}

TEST_F(Config, GitignoreAndIgnoreFilesAreHonouredUnlessNoIgnore) {
  write("train.py", kTraining);
  write("generated/train.py", kTraining);
  write("scratch.py", kTraining);
  write(".gitignore", "generated/\n");
  write(".ignore", "scratch.py\n");
  ASSERT_EQ(std::system(("git init -q " + gpulint::testing::quote(work_.string())).c_str()), 0);
  std::set<std::string> walked;
  for (const auto& [path, code] : findings({"."})) walked.insert(path);
  EXPECT_EQ(walked, (std::set<std::string>{"train.py"}));
  walked.clear();
  for (const auto& [path, code] : findings({"--no-ignore", "."})) walked.insert(path);
  EXPECT_EQ(walked, (std::set<std::string>{"generated/train.py", "scratch.py", "train.py"}));
}

TEST_F(Config, ShowSettingsNamesTheConfigAndTheRules) {
  write("train.py", kTraining);
  write("pyproject.toml", "[tool.gpulint]\nignore = [\"GL104\"]\n");
  const Result r = run({"--show-settings", "train.py"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("pyproject.toml"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ignore: [GL104]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" GL104 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" GL101 "), std::string::npos) << r.out;
}

}  // namespace

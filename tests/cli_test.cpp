// Runs the real gpulint binary: exit codes, output formats, selection, and bad input that must
// end in a clear message, never a crash or a hang.

#include <gtest/gtest.h>
#include <sys/stat.h>
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

#include "tests/cli_harness.h"

namespace {

namespace fs = std::filesystem;
using gpulint::testing::Result;
using gpulint::testing::slurp;

using gpulint::testing::kTraining;

const char kClean[] = R"(import os


def main():
    print(os.getcwd())
)";

class Cli : public gpulint::testing::GpulintRun {};

TEST_F(Cli, CleanFileExitsZero) {
  write("clean.py", kClean);
  const Result r = run({"check", "clean.py"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "All checks passed! (1 file checked)\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, FindingsExitOne) {
  write("train.py", kTraining);
  const Result r = run({"check", "train.py"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("train.py:12:13: GL101 [item-in-loop]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  12 |     total = loss.item()\n"
                       "     |             ^^^^^^^^^^^\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "colour into a pipe";
}

TEST_F(Cli, BarePathMeansCheck) {
  write("train.py", kTraining);
  write("more/clean.py", kClean);
  const Result bare = run({"train.py", "more"});
  const Result check = run({"check", "train.py", "more"});
  EXPECT_EQ(bare.status, 1);
  EXPECT_EQ(bare.status, check.status);
  EXPECT_EQ(bare.out, check.out);
  EXPECT_EQ(bare.err, check.err);
  // An option before the path still means check.
  const Result json = run({"--format", "json", "train.py"});
  EXPECT_EQ(json.status, 1);
  EXPECT_EQ(parse_json(json)["tool"], "gpulint");
}

TEST_F(Cli, JsonHasTheContractKeys) {
  write("train.py", kTraining);
  write("clean.py", kClean);
  const Result r = run({"check", "--format", "json", "."});
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_TRUE(r.out.ends_with("}\n"));
  const nlohmann::json report = parse_json(r);
  EXPECT_EQ(report["tool"], "gpulint");
  EXPECT_TRUE(report["version"].is_string());
  ASSERT_TRUE(report["diagnostics"].is_array());
  ASSERT_FALSE(report["diagnostics"].empty());
  for (const auto& d : report["diagnostics"]) {
    for (const char* key : {"code", "name", "severity", "message", "help", "path", "line", "column",
                            "end_line", "end_column", "related"}) {
      EXPECT_TRUE(d.contains(key)) << key << " in " << d.dump();
    }
    EXPECT_TRUE(d["severity"] == "warning" || d["severity"] == "error");
    EXPECT_GE(d["line"].get<int>(), 1);
    EXPECT_GE(d["column"].get<int>(), 1);
  }
  const auto& summary = report["summary"];
  EXPECT_EQ(summary["files_checked"], 2);
  EXPECT_EQ(summary["findings"], report["diagnostics"].size());
  EXPECT_TRUE(summary["by_code"].contains("GL101"));
  EXPECT_EQ(summary["file_errors"], nlohmann::json::array());
}

TEST_F(Cli, OutputDoesNotDependOnJobs) {
  for (int i = 0; i < 20; ++i) {
    write("pkg/m" + std::to_string(i) + ".py", i % 3 == 0 ? kClean : kTraining);
  }
  for (const char* format : {"text", "json"}) {
    const Result one = run({"check", "--format", format, "-j", "1", "pkg"});
    const Result four = run({"check", "--format", format, "-j", "4", "pkg"});
    const Result all = run({"check", "--format", format, "pkg"});
    EXPECT_EQ(one.status, 1);
    EXPECT_EQ(one.out, four.out) << format;
    EXPECT_EQ(one.out, all.out) << format;
  }
  EXPECT_EQ(parse_json(run({"--format", "json", "pkg"}))["summary"]["files_checked"], 20);
}

TEST_F(Cli, SelectAndIgnore) {
  write("train.py", kTraining + std::string("    print(step)\n"));
  const auto all = codes(parse_json(run({"--format", "json", "--select", "ALL", "train.py"})));
  ASSERT_TRUE(all.contains("GL101"));
  ASSERT_TRUE(all.contains("GL104"));

  EXPECT_EQ(codes(parse_json(run({"--format", "json", "--select", "GL101", "train.py"}))),
            std::set<std::string>{"GL101"});
  EXPECT_EQ(codes(parse_json(run({"--format", "json", "--select=GL101,GL104", "train.py"}))),
            (std::set<std::string>{"GL101", "GL104"}));
  EXPECT_EQ(codes(parse_json(
                run({"--format", "json", "--select", "GL101", "--select", "GL104", "train.py"}))),
            (std::set<std::string>{"GL101", "GL104"}));
  const auto ignored = codes(parse_json(run({"--format", "json", "--ignore", "GL1", "train.py"})));
  for (const std::string& code : ignored) EXPECT_FALSE(code.starts_with("GL1")) << code;

  const Result none = run({"--select", "GL101", "--ignore", "ALL", "train.py"});
  EXPECT_EQ(none.status, 0) << none.out;
}

TEST_F(Cli, UnknownSelectorIsAUsageError) {
  write("train.py", kTraining);
  for (const char* flag : {"--select", "--ignore"}) {
    const Result r = run({flag, "GL999", "train.py"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("GL999"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(Cli, UsageErrorsExitTwo) {
  write("a.py", kClean);
  EXPECT_EQ(run({"check", "--jobs"}).status, 2);  // a flag without its value
  EXPECT_EQ(run({"--format", "xml", "a.py"}).status, 2);
  EXPECT_EQ(run({"--no-such-flag", "a.py"}).status, 2);
  EXPECT_EQ(run({"-j", "-3", "a.py"}).status, 2);
  EXPECT_EQ(run({"explain"}).status, 2);
  const Result help = run({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("check"), std::string::npos);
  const Result version = run({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_TRUE(version.out.starts_with("gpulint ")) << version.out;
}

TEST_F(Cli, RulesListsEveryRule) {
  const Result text = run({"rules"});
  EXPECT_EQ(text.status, 0);
  EXPECT_TRUE(text.out.starts_with("CODE ")) << text.out;
  EXPECT_NE(text.out.find("GL101  item-in-loop"), std::string::npos) << text.out;

  const Result json = run({"rules", "--format", "json"});
  EXPECT_EQ(json.status, 0);
  const nlohmann::json rules = parse_json(json);
  ASSERT_TRUE(rules.is_array());
  bool found = false;
  for (const auto& rule : rules) {
    EXPECT_TRUE(rule["default"] == "on" || rule["default"] == "opt-in") << rule.dump();
    found = found || (rule["code"] == "GL101" && rule["name"] == "item-in-loop");
  }
  EXPECT_TRUE(found);
}

TEST_F(Cli, ExplainPrintsTheDocs) {
  const Result r = run({"explain", "GL101"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("# item-in-loop (GL101)\n")) << r.out;
  EXPECT_NE(r.out.find("What it does"), std::string::npos) << r.out;
  EXPECT_EQ(run({"explain", "gl101"}).out, r.out);

  const Result unknown = run({"explain", "GL999"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("GL999"), std::string::npos);
  EXPECT_NE(unknown.err.find("gpulint rules"), std::string::npos);
}

TEST_F(Cli, OutputFileIsWrittenInsteadOfStdout) {
  write("train.py", kTraining);
  const Result r =
      run({"--format", "json", "--no-cache", "--output-file", "report.json", "train.py"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(parse_json({0, slurp(work_ / "report.json"), ""})["tool"], "gpulint");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(work_)) ++entries;
  EXPECT_EQ(entries, 2u) << "a temporary file was left behind";

  const Result missing_dir = run({"--output-file", "no/such/dir/report.txt", "train.py"});
  EXPECT_EQ(missing_dir.status, 2);
  EXPECT_NE(missing_dir.err.find("no/such/dir/report.txt"), std::string::npos) << missing_dir.err;
}

TEST_F(Cli, MissingPath) {
  write("train.py", kTraining);
  const Result r = run({"nope.py", "train.py"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gpulint: error: nope.py"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("GL101"), std::string::npos) << "the other path is still linted";
}

TEST_F(Cli, DirectoryWithoutPythonFiles) {
  write("empty/readme.txt", "no python here\n");
  const Result r = run({"empty"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "gpulint: warning: no Python files found under empty\n");
}

TEST_F(Cli, BinaryFile) {
  write("blob.py", std::string("\x7f"
                               "ELF\0\0\0\x01\x02 import torch\0",
                               22));
  write("train.py", kTraining);
  const Result r = run({"."});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gpulint: error: blob.py: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("train.py:12:13: GL101"), std::string::npos) << r.out;
}

TEST_F(Cli, InvalidUtf8) {
  write("bad.py", "x = 1\ns = '\xff\xfe'\n");
  write("train.py", kTraining);
  const Result r = run({"."});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gpulint: error: bad.py"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("train.py:12:13: GL101"), std::string::npos) << r.out;
  const nlohmann::json report = parse_json(run({"--format", "json", "."}));
  ASSERT_EQ(report["summary"]["file_errors"].size(), 1u);
  EXPECT_EQ(report["summary"]["file_errors"][0].get<std::string>().rfind("bad.py: ", 0), 0u);
}

TEST_F(Cli, HugeOneLineFiles) {
  constexpr size_t kSize = 5 << 20;
  std::string statements;
  while (statements.size() < kSize) statements += "x = 1; ";
  write("statements.py", statements + "\n");
  // A left-leaning operator chain is as deep as it is long: about 2.6 million levels.
  std::string chain = "y = 1";
  while (chain.size() < kSize) chain += "+1";
  write("chain.py", chain + "\n");
  write("string.py", "s = '" + std::string(kSize, 'a') + "'\n");
  const Result r = run({"--format", "json", "."});
  EXPECT_NE(r.status, 2) << r.err;
  // Only the operator chain may be reported, and then once, as too deep to analyse.
  const nlohmann::json report = parse_json(r);
  for (const auto& d : report["diagnostics"]) {
    EXPECT_EQ(d["path"], "chain.py") << d.dump();
    EXPECT_EQ(d["code"], "GL000") << d.dump();
  }
}

TEST_F(Cli, HugeLineWithAFinding) {
  std::string line = "    total = loss.item()";
  while (line.size() < (5 << 20)) line += "; x = 1";
  write("train.py", std::string(kTraining) + line + "\n");
  const Result r = run({"train.py"});
  EXPECT_EQ(r.status, 1);
  EXPECT_LT(r.out.size(), 10000u) << "the long line must be cut to a window";
  EXPECT_NE(r.out.find("train.py:13:"), std::string::npos) << r.out.substr(0, 2000);
}

TEST_F(Cli, DeepNesting) {
  constexpr int kDepth = 1000;
  write("parens.py", "x = " + std::string(kDepth, '(') + "1" + std::string(kDepth, ')') + "\n");
  write("lists.py", "x = " + std::string(kDepth, '[') + std::string(kDepth, ']') + "\n");
  std::string calls = "1";
  for (int i = 0; i < kDepth; ++i) calls = "f(" + calls + ")";
  write("calls.py", "def f(v):\n    return v\n\nx = " + calls + "\n");
  std::string items = "loss";
  for (int i = 0; i < kDepth; ++i) items = "float(" + items + ".item())";
  write("train.py", std::string(kTraining) + "    y = " + items + "\n");
  const Result r = run({"--format", "json", "."});
  EXPECT_EQ(r.status, 1) << r.err;
  size_t syncs = 0;
  const nlohmann::json report = parse_json(r);
  for (const auto& d : report["diagnostics"]) {
    if (d["path"] == "train.py") {
      syncs += d["code"] == "GL101";
    } else {
      // CPython itself stops at 200 nested parentheses; a depth limit is fair, silence too.
      EXPECT_EQ(d["code"], "GL000") << d.dump();
    }
  }
  EXPECT_GT(syncs, 1u);
}

TEST_F(Cli, SyntaxErrorStillReportsLaterFindings) {
  write("broken.py", R"(import torch
from torch import nn

def broken(:
    pass

model = nn.Linear(10, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(32, 10, device="cuda")
    loss = model(x).sum()
    loss.backward()
    opt.step()
    total = loss.item()
)");
  const Result r = run({"--format", "json", "broken.py"});
  EXPECT_EQ(r.status, 1) << r.err;
  const nlohmann::json report = parse_json(r);
  ASSERT_FALSE(report["diagnostics"].empty()) << r.out;
  size_t parse_errors = 0;
  bool later_finding = false;
  for (const auto& d : report["diagnostics"]) {
    if (d["code"] == "GL000") {
      ++parse_errors;
      EXPECT_EQ(d["line"], 4) << d.dump();
    }
    later_finding = later_finding || (d["code"] == "GL101" && d["line"] == 14);
  }
  EXPECT_EQ(parse_errors, 1u) << r.out;
  EXPECT_TRUE(later_finding) << r.out;
}

TEST_F(Cli, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a chmod 000 file";
  write("secret.py", kTraining);
  write("train.py", kTraining);
  fs::permissions(work_ / "secret.py", fs::perms::none);
  const Result r = run({"secret.py", "train.py"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gpulint: error: secret.py"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("train.py:12:13: GL101"), std::string::npos) << r.out;
}

}  // namespace

// Real gpulint runs, validated against the official SARIF 2.1.0 JSON schema (the one
// @microsoft/sarif-multitool ships) with ajv, and against GitHub code scanning's ingestion
// rules with the multitool's own validator. The tools are the ones scripts/setup.sh installs
// from tests/report_sarif/package-lock.json into BUILD_DIR/_sarif_tools.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/expectations.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kTools = GPULINT_SARIF_TOOLS;
const fs::path kInputs = fs::path(GPULINT_SOURCE_DIR) / "tests/report_sarif/inputs";

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

std::string quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Runs a shell command under a time limit, so a stuck validator fails the test instead of
// hanging the suite.
Result shell(const std::string& command, const fs::path& log) {
  const std::string line = "timeout -k 5 120 " + command + " >" + quote(log.string()) + " 2>&1";
  const int raw = std::system(line.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), read(log)};
}

bool have_node() { return std::system("command -v node >/dev/null 2>&1") == 0; }

const fs::path& schema() {
  static const fs::path path =
      kTools / "node_modules/@microsoft/sarif-multitool-linux/sarif-2.1.0.json";
  return path;
}

const fs::path& multitool() {
  static const fs::path path =
      kTools / "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool";
  return path;
}

class SarifSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_node()) {
      GTEST_SKIP() << "\n*** SKIPPED: node is not installed, so the SARIF output is NOT "
                      "validated against the SARIF 2.1.0 schema. scripts/setup.sh installs "
                      "nodejs. ***";
    }
    ASSERT_TRUE(fs::exists(kTools / "node_modules/.bin/ajv") && fs::exists(schema()))
        << "the SARIF validation tools are not installed in " << kTools
        << "; run: tests/report_sarif/install.sh " << kTools << " (scripts/setup.sh does)";
    std::string root = (fs::temp_directory_path() / "gpulint-sarif-XXXXXX").string();
    ASSERT_NE(::mkdtemp(root.data()), nullptr);
    root_ = root;
    work_ = root_ / "work";
    logs_ = root_ / "logs";
    fs::create_directories(work_);
    fs::create_directories(logs_);
    for (const auto& entry : fs::directory_iterator(kInputs)) {
      fs::copy_file(entry.path(), work_ / entry.path().filename());
    }
  }

  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  // gpulint in the work directory, so %SRCROOT% is the work directory.
  Result gpulint(const std::vector<std::string>& args) {
    std::string command = "sh -c " + quote("cd " + quote(work_.string()) + " && exec " +
                                           quote(GPULINT_BINARY) + args_text(args));
    Result r = shell(command, logs_ / "gpulint.log");
    EXPECT_LE(r.status, 2) << "gpulint crashed or hung:\n" << r.output;
    return r;
  }

  // Writes the SARIF of `paths` to a file whose name ends in .json (ajv picks its parser by
  // the extension) and returns it; the exit status is checked by the caller.
  fs::path sarif_of(const std::vector<std::string>& paths, int expected_status) {
    const fs::path out = root_ / ("report" + std::to_string(++reports_) + ".sarif.json");
    std::vector<std::string> args = {"check", "--format", "sarif", "--output-file", out.string()};
    args.insert(args.end(), paths.begin(), paths.end());
    const Result r = gpulint(args);
    EXPECT_EQ(r.status, expected_status) << r.output;
    return out;
  }

  void expect_schema_valid(const fs::path& sarif) {
    const Result r = shell(quote((kTools / "node_modules/.bin/ajv").string()) +
                               " validate --spec=draft2020 -c ajv-formats --errors=text -s " +
                               quote(schema().string()) + " -d " + quote(sarif.string()),
                           logs_ / "ajv.log");
    EXPECT_EQ(r.status, 0) << "not valid SARIF 2.1.0:\n" << r.output;
    EXPECT_NE(r.output.find(" valid"), std::string::npos) << r.output;
  }

  // The multitool exits 0 whatever it finds, so its findings are read from its output.
  void expect_code_scanning_accepts(const fs::path& sarif) {
    if (!fs::exists(multitool())) {
      std::cerr << "*** NOTE: the SARIF multitool has no binary for this platform; GitHub's "
                   "ingestion rules were not checked (the schema was). ***\n";
      return;
    }
    const Result r = shell(
        "env DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 " + quote(multitool().string()) +
            " validate --rule-kind 'Sarif;Ghas' --level 'Error;Warning' " + quote(sarif.string()),
        logs_ / "multitool.log");
    ASSERT_EQ(r.status, 0) << r.output;
    ASSERT_NE(r.output.find("Analysis completed successfully"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(": error "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(": warning "), std::string::npos) << r.output;
  }

  void expect_valid(const fs::path& sarif) {
    expect_schema_valid(sarif);
    expect_code_scanning_accepts(sarif);
  }

  static std::string args_text(const std::vector<std::string>& args) {
    std::string out;
    for (const std::string& arg : args) out += " " + quote(arg);
    return out;
  }

  static json load(const fs::path& path) {
    try {
      return json::parse(read(path));
    } catch (const json::exception& e) {
      ADD_FAILURE() << path << " is not JSON: " << e.what();
      return {};
    }
  }

  fs::path root_;
  fs::path work_;
  fs::path logs_;
  int reports_ = 0;
};

// The results are exactly what the input's `# expect:` markers say, at the same lines.
void expect_results_match_markers(const json& run, const fs::path& input) {
  const auto parsed = gpulint::expect::parse_expectations(read(input));
  ASSERT_TRUE(parsed.errors.empty()) << input;
  std::vector<gpulint::expect::Actual> actuals;
  for (const json& r : run["results"]) {
    const json& region = r["locations"][0]["physicalLocation"]["region"];
    actuals.push_back({r["ruleId"].get<std::string>(), region["startLine"].get<uint32_t>(),
                       region["startColumn"].get<uint32_t>(), r["message"]["text"]});
  }
  const auto match = gpulint::expect::match(parsed.expectations, actuals);
  for (const auto& e : match.missing)
    ADD_FAILURE() << "missing " << e.code << " on line " << e.line;
  for (const auto& a : match.unexpected)
    ADD_FAILURE() << "unexpected " << a.code << " on line " << a.line;
}

TEST_F(SarifSchema, CleanRun) {
  const fs::path sarif = sarif_of({"clean.py"}, 0);
  expect_valid(sarif);
  const json run = load(sarif)["runs"][0];
  EXPECT_EQ(run["results"], json::array());
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  EXPECT_EQ(run["invocations"][0]["toolExecutionNotifications"], json::array());
}

TEST_F(SarifSchema, FindingsWithRelatedLocationsAndFixes) {
  const fs::path sarif = sarif_of({"findings.py"}, 1);
  expect_valid(sarif);
  const json run = load(sarif)["runs"][0];
  expect_results_match_markers(run, kInputs / "findings.py");
  size_t related = 0, fixes = 0, replacing = 0;
  for (const json& r : run["results"]) {
    EXPECT_EQ(r["locations"][0]["physicalLocation"]["artifactLocation"],
              json({{"uri", "findings.py"}, {"uriBaseId", "SRCROOT"}}));
    if (r.contains("relatedLocations")) {
      ++related;
      EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 23);
    }
    if (!r.contains("fixes")) continue;
    ++fixes;
    for (const json& edit : r["fixes"][0]["artifactChanges"][0]["replacements"]) {
      const json& deleted = edit["deletedRegion"];
      if (deleted["startColumn"] != deleted["endColumn"]) ++replacing;
    }
  }
  EXPECT_EQ(related, 2u);  // GL101 and GL104 in the helper, called from line 23
  EXPECT_EQ(fixes, 3u);    // GL201, GL202 insert options; GL402 renames
  EXPECT_GE(replacing, 1u);
}

TEST_F(SarifSchema, FixRegionsAddressTheEditedText) {
  const json run = load(sarif_of({"findings.py"}, 1))["runs"][0];
  const std::string text = read(kInputs / "findings.py");
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const json& r : run["results"]) {
    if (r["ruleId"] != "GL402") continue;
    const json& deleted = r["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"];
    const std::string& line = lines.at(deleted["startLine"].get<size_t>() - 1);
    const size_t begin = deleted["startColumn"].get<size_t>() - 1;
    const size_t end = deleted["endColumn"].get<size_t>() - 1;
    EXPECT_EQ(line.substr(begin, end - begin), "torch.cuda.amp.autocast");
    return;
  }
  ADD_FAILURE() << "no GL402 result";
}

TEST_F(SarifSchema, ParseErrorIsAResultAndANotification) {
  const fs::path sarif = sarif_of({"parse_error.py"}, 1);
  expect_valid(sarif);
  const json run = load(sarif)["runs"][0];
  expect_results_match_markers(run, kInputs / "parse_error.py");
  const json& notes = run["invocations"][0]["toolExecutionNotifications"];
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]["associatedRule"]["id"], "GL000");
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
}

TEST_F(SarifSchema, FileErrorsAreNotificationsOfAFailedExecution) {
  std::ofstream(work_ / "binary.py", std::ios::binary) << std::string("x = 1\0\1\2", 9);
  std::ofstream(work_ / "latin1.py", std::ios::binary) << "s = '\xe9'\n";
  const fs::path sarif = sarif_of({"findings.py", "binary.py", "latin1.py", "missing.py"}, 2);
  expect_valid(sarif);
  const json run = load(sarif)["runs"][0];
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], false);
  std::string texts;
  for (const json& n : run["invocations"][0]["toolExecutionNotifications"]) {
    EXPECT_EQ(n["level"], "error");
    texts += n["message"]["text"].get<std::string>() + "\n";
  }
  for (const char* name : {"binary.py", "latin1.py", "missing.py"}) {
    EXPECT_NE(texts.find(name), std::string::npos) << name << " not in:\n" << texts;
  }
  EXPECT_FALSE(run["results"].empty());  // the file that could be read still has its results
}

TEST_F(SarifSchema, OddPathsGiveValidUris) {
  fs::create_directories(work_ / "dir with space");
  fs::copy_file(kInputs / "findings.py", work_ / "dir with space" / "na\xc3\xafve #1%.py");
  const fs::path sarif = sarif_of({"dir with space"}, 1);
  expect_valid(sarif);
  const json run = load(sarif)["runs"][0];
  ASSERT_FALSE(run["results"].empty());
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "dir%20with%20space/na%C3%AFve%20%231%25.py");
}

TEST_F(SarifSchema, TheValidatorsRejectBrokenSarif) {
  // Guards the two checks above against passing vacuously.
  // One flaw a file: the multitool reads a file with an unknown enum value as empty.
  const json sarif = load(sarif_of({"findings.py"}, 1));
  json bad_level = sarif;
  bad_level["runs"][0]["results"][1]["level"] = "severe";
  const fs::path path = root_ / "bad-level.sarif.json";
  std::ofstream(path) << bad_level.dump(2);
  const Result ajv = shell(quote((kTools / "node_modules/.bin/ajv").string()) +
                               " validate --spec=draft2020 -c ajv-formats --errors=text -s " +
                               quote(schema().string()) + " -d " + quote(path.string()),
                           logs_ / "ajv.log");
  EXPECT_NE(ajv.status, 0) << ajv.output;
  EXPECT_NE(ajv.output.find("level"), std::string::npos) << ajv.output;
  if (!fs::exists(multitool())) return;
  json no_locations = sarif;
  no_locations["runs"][0]["results"][0].erase("locations");
  const fs::path unlocated = root_ / "no-locations.sarif.json";
  std::ofstream(unlocated) << no_locations.dump(2);
  const Result mt = shell(
      "env DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 " + quote(multitool().string()) +
          " validate --rule-kind 'Sarif;Ghas' --level 'Error;Warning' " +
          quote(unlocated.string()),
      logs_ / "multitool.log");
  EXPECT_NE(mt.output.find("does not provide a 'locations' array"), std::string::npos) << mt.output;
}

TEST_F(SarifSchema, SeveralOutputsInOneRun) {
  const fs::path sarif = root_ / "out.sarif.json";
  const fs::path json_out = root_ / "out.json";
  const Result r = gpulint({"check", "--format", "text", "--sarif-output", sarif.string(),
                            "--json-output", json_out.string(), "findings.py"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("Found 5 findings in 1 file."), std::string::npos) << r.output;
  expect_valid(sarif);
  EXPECT_EQ(load(sarif)["runs"][0]["results"].size(), 5u);
  EXPECT_EQ(load(json_out)["diagnostics"].size(), 5u);
  // No temporary files are left next to the reports.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(root_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 2u);
}

TEST_F(SarifSchema, AnOutputThatCannotBeWrittenFailsTheRunButNotTheOthers) {
  const fs::path json_out = root_ / "out.json";
  const Result r = gpulint({"check", "--sarif-output", (root_ / "no/such/dir/out.sarif").string(),
                            "--json-output", json_out.string(), "findings.py"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("no/such/dir/out.sarif"), std::string::npos) << r.output;
  EXPECT_EQ(load(json_out)["diagnostics"].size(), 5u);
}

TEST_F(SarifSchema, GithubFormatAnnotatesEachFinding) {
  const Result r = gpulint({"check", "--format", "github", "findings.py"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("::warning file=findings.py,line=16,col=14,endLine=16,endColumn=48,"
                          "title=GL201 [dataloader-num-workers]::DataLoader without"),
            std::string::npos)
      << r.output;
  size_t annotations = 0;
  for (size_t at = r.output.find("::warning "); at != std::string::npos;
       at = r.output.find("::warning ", at + 1)) {
    ++annotations;
  }
  EXPECT_EQ(annotations, 5u);
}

}  // namespace

// render_sarif and render_github against golden files, and the properties code scanning relies
// on: fingerprints that survive moved lines, %SRCROOT%-relative URIs, rule indices.
//
// The golden files use two made-up rules, so a change to a real rule's docs does not touch
// them. GPULINT_UPDATE_GOLDEN=1 rewrites them from the current output (review the diff).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/report/report.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kSyncDocs = R"md(## What it does
Flags `.item()` in a step loop,
even through a helper.

## Why is this bad
It waits for the GPU.

## Example
```python
total += loss.item()
```

## Use instead
```python
total += loss.detach()
```
)md";

std::vector<RuleInfo> golden_rules() {
  return {
      {"GL000",
       "parse-error",
       "meta",
       "The file could not be parsed cleanly",
       "fix the syntax",
       {},
       "## What it does\nReports a syntax error.\n",
       true,
       Severity::Error,
       Precision::VeryHigh,
       RuleKind::Syntax},
      {"GL101",
       "item-in-loop",
       "sync",
       "Tensor value read on the host every step",
       "accumulate on the device",
       {},
       kSyncDocs,
       true,
       Severity::Warning,
       Precision::High},
      {"GL203",
       "dataloader-persistent-workers",
       "data",
       "DataLoader workers re-spawned",
       "set `persistent_workers=True`",
       {},
       "no sections",
       false,
       Severity::Warning,
       Precision::Medium},
  };
}

Location at(std::string path, uint32_t line, uint32_t column, uint32_t end_line,
            uint32_t end_column) {
  return {std::move(path), {}, {line, column}, {end_line, end_column}};
}

Diagnostic item(std::string path, uint32_t line, std::string source_line) {
  Diagnostic d;
  d.code = "GL101";
  d.name = "item-in-loop";
  d.message = "`.item()` in the training loop waits for the GPU every step";
  d.help = "accumulate on the device";
  d.location = at(std::move(path), line, 14, line, 25);
  d.source_line = std::move(source_line);
  return d;
}

std::vector<Diagnostic> golden_diagnostics() {
  Diagnostic parse;
  parse.code = "GL000";
  parse.name = "parse-error";
  parse.severity = Severity::Error;
  parse.message = "syntax error near `for x in y`";
  parse.location = at("bad.py", 3, 1, 3, 11);
  parse.source_line = "for x in y";

  Diagnostic helper = item("src/helpers.py", 4, "    total += loss.item()");
  helper.related.push_back({at("train.py", 40, 9, 40, 22), "called from the step loop here"});

  Diagnostic fixed = item("train.py", 12, "    total += loss.item()");
  fixed.fix = Fix{"detach instead", Applicability::Unsafe, {}};
  Edit replace{{0, 0}, "detach", {12, 19}, {12, 23}};
  Edit insert{{0, 0}, ")\n", {13, 1}, {13, 1}};
  fixed.fix->edits = {replace, insert};

  return {parse, helper, fixed};
}

const SarifOptions kOptions{.version = "0.1.0",
                            .information_uri = "https://example.org/gpulint",
                            .source_root = "/repo",
                            .automation_id = "gpulint/"};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(GPULINT_SOURCE_DIR) / "tests/report_sarif/golden" / name;
  const char* update = std::getenv("GPULINT_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; GPULINT_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(actual, read(path)) << "differs from " << path
                                << "; GPULINT_UPDATE_GOLDEN=1 rewrites it";
}

json sarif_run(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary = {}) {
  return json::parse(render_sarif(diagnostics, summary, golden_rules(), kOptions))["runs"][0];
}

std::string fingerprint(const json& result) {
  return result["partialFingerprints"]["primaryLocationLineHash"].get<std::string>();
}

TEST(SarifGolden, FindingsRelatedLocationsFixesAndNotifications) {
  expect_golden("findings.sarif",
                render_sarif(golden_diagnostics(), {3, {"data.bin: looks like a binary file"}},
                             golden_rules(), kOptions));
}

TEST(SarifGolden, CleanRun) {
  expect_golden("clean.sarif", render_sarif({}, {2, {}}, golden_rules(), kOptions));
}

TEST(GithubGolden, AnnotationsAndFileErrors) {
  std::vector<Diagnostic> diagnostics = golden_diagnostics();
  // Every character the runner treats specially, in a path, a title and a message.
  Diagnostic odd = item("we,ird:dir/100%.py", 2, "x");
  odd.message = "50% of steps\r\nwait: here, there";
  odd.help.clear();
  diagnostics.push_back(odd);
  expect_golden("findings.github",
                render_github(diagnostics, {3, {"data.bin: looks like a binary file"}}));
}

TEST(Github, CleanRunPrintsNothing) { EXPECT_EQ(render_github({}, {1, {}}), ""); }

TEST(Sarif, RuleIndexPointsAtTheRuleWithTheSameId) {
  const json run = sarif_run(golden_diagnostics());
  const json& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 3u);
  for (const json& result : run["results"]) {
    EXPECT_EQ(rules[result["ruleIndex"].get<size_t>()]["id"], result["ruleId"]);
  }
}

TEST(Sarif, RulesCarryDocsLevelTagsAndPrecision) {
  const json rules = sarif_run({})["tool"]["driver"]["rules"];
  EXPECT_EQ(rules[1]["fullDescription"]["text"],
            "Flags `.item()` in a step loop, even through a helper.");
  EXPECT_EQ(rules[1]["help"]["markdown"].get<std::string>().rfind(std::string(kSyncDocs), 0), 0u);
  EXPECT_EQ(rules[0]["defaultConfiguration"]["level"], "error");
  EXPECT_EQ(rules[2]["defaultConfiguration"]["enabled"], false);  // opt-in
  EXPECT_EQ(rules[1]["properties"]["tags"], json({"performance", "gpu", "sync"}));
  EXPECT_EQ(rules[0]["properties"]["precision"], "very-high");
  EXPECT_EQ(rules[2]["properties"]["precision"], "medium");
  // Docs without a "What it does" section fall back to the summary.
  EXPECT_EQ(rules[2]["fullDescription"]["text"], "DataLoader workers re-spawned");
}

TEST(Sarif, FingerprintIgnoresLineNumbersAndIndentation) {
  const json before = sarif_run({item("train.py", 12, "    total += loss.item()")});
  const json moved = sarif_run({item("train.py", 30, "\t\ttotal  +=  loss.item()")});
  EXPECT_EQ(fingerprint(before["results"][0]), fingerprint(moved["results"][0]));
  const json changed = sarif_run({item("train.py", 12, "    total += other.item()")});
  EXPECT_NE(fingerprint(before["results"][0]), fingerprint(changed["results"][0]));
}

TEST(Sarif, IdenticalLinesGetOccurrenceCounts) {
  const json run = sarif_run({item("a.py", 3, "x = t.item()"), item("a.py", 9, "x = t.item()"),
                              item("b.py", 9, "x = t.item()")});
  const std::string first = fingerprint(run["results"][0]);
  ASSERT_TRUE(first.ends_with(":1")) << first;
  EXPECT_EQ(fingerprint(run["results"][1]), first.substr(0, first.size() - 1) + "2");
  EXPECT_EQ(fingerprint(run["results"][2]), first);  // counted per file
}

json artifact_of(const std::string& path, const std::string& root) {
  SarifOptions options = kOptions;
  options.source_root = root;
  const json sarif = json::parse(render_sarif({item(path, 1, "x")}, {}, golden_rules(), options));
  return sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
}

TEST(Sarif, PathsUnderTheRootAreRelativeToSrcroot) {
  EXPECT_EQ(artifact_of("train.py", "/repo"),
            json({{"uri", "train.py"}, {"uriBaseId", "SRCROOT"}}));
  EXPECT_EQ(artifact_of("./src/../train.py", "/repo")["uri"], "train.py");
  EXPECT_EQ(artifact_of("/repo/src/train.py", "/repo/")["uri"], "src/train.py");
  const json srcroot = sarif_run({})["originalUriBaseIds"]["SRCROOT"];
  EXPECT_EQ(srcroot["uri"], "file:///repo/");
}

TEST(Sarif, PathsOutsideTheRootAreAbsoluteFileUris) {
  EXPECT_EQ(artifact_of("../other/x.py", "/repo"), json({{"uri", "file:///other/x.py"}}));
  EXPECT_EQ(artifact_of("/tmp/x.py", "/repo"), json({{"uri", "file:///tmp/x.py"}}));
}

TEST(Sarif, UrisArePercentEncoded) {
  EXPECT_EQ(artifact_of("my dir/50%#1.py", "/repo")["uri"], "my%20dir/50%25%231.py");
  EXPECT_EQ(artifact_of("na\xc3\xafve.py", "/repo")["uri"], "na%C3%AFve.py");
  // A ':' in the first segment would read as a URI scheme.
  EXPECT_EQ(artifact_of("c:x.py", "/repo")["uri"], "c%3Ax.py");
}

TEST(Sarif, FileErrorsMakeTheExecutionUnsuccessful) {
  const json ok = sarif_run(golden_diagnostics(), {3, {}});
  EXPECT_EQ(ok["invocations"][0]["executionSuccessful"], true);  // a parse error is a finding
  const json failed = sarif_run({}, {1, {"x.py: cannot be read"}});
  EXPECT_EQ(failed["invocations"][0]["executionSuccessful"], false);
  EXPECT_EQ(failed["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"],
            "x.py: cannot be read");
}

TEST(Sarif, BytesThatAreNotUtf8DoNotStopTheReport) {
  Diagnostic d = item("bad\xff.py", 1, "x");
  d.message = "bad \xff byte";
  const json run = sarif_run({d});
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "bad%FF.py");
  EXPECT_EQ(run["results"][0]["message"]["text"], "bad \xef\xbf\xbd byte");
}

}  // namespace
}  // namespace gpulint

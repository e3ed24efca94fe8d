// The fixture runner: every fixtures/python/**/*.py is linted with the default-on rules plus the
// opt-in rules its markers or its `# gpulint-test: select=` directive name
// (tests/fixture_selection.h), and its findings must equal its inline expectations
// (tests/expectations.h): every `expect` and `known-false` marker reported, no `known-miss`
// marker reported, nothing else reported. One parameterised case per fixture file, named after
// the file.
//
// A folder under fixtures/python/realistic/ is one multi-module project: its files are linted
// together through lint_files, so cross-file facts can apply, and each file is compared with
// its own markers.
//
// RealisticCorpus.PrecisionAndRecall sums the markers of fixtures/python/realistic/** into
// per-code precision and recall (expect: true positive, known-false: false positive,
// known-miss: false negative), prints the table, and writes it to $GPULINT_PRECISION_REPORT
// when that is set.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/expectations.h"
#include "tests/fixture_files.h"
#include "tests/fixture_selection.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::source_dir;

std::vector<std::string> python_fixtures() { return testing::fixture_files("python", ".py"); }

// `fixtures/python/realistic/lightning_module.py` -> `realistic_lightning_module`.
std::string case_name(const std::string& relative) {
  std::string name =
      fs::path(relative).lexically_relative("fixtures/python").replace_extension().generic_string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

constexpr std::string_view kRealistic = "fixtures/python/realistic/";

// Folders whose subfolders are multi-module projects.
constexpr std::string_view kProjectParents[] = {kRealistic, "fixtures/python/cross_module/"};

// The project folder of a fixture (`fixtures/python/realistic/proj_detect`), or empty for a
// fixture that is linted alone.
std::string project_of(const std::string& relative) {
  for (std::string_view parent : kProjectParents) {
    if (relative.compare(0, parent.size(), parent) != 0) continue;
    const size_t slash = relative.find('/', parent.size());
    if (slash == std::string::npos) return {};
    return relative.substr(0, slash);
  }
  return {};
}

// The fixtures linted together with `relative` (itself included), sorted.
std::vector<std::string> lint_unit(const std::string& relative) {
  const std::string project = project_of(relative);
  if (project.empty()) return {relative};
  std::vector<std::string> unit;
  for (const std::string& other : python_fixtures()) {
    if (project_of(other) == project) unit.push_back(other);
  }
  return unit;
}

const char* kind_name(expect::Kind kind) {
  switch (kind) {
    case expect::Kind::Expect:
      return "expect";
    case expect::Kind::KnownMiss:
      return "known-miss";
    case expect::Kind::KnownFalse:
      return "known-false";
  }
  return "expect";
}

class PythonFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonFixture, MatchesExpectations) {
  const std::string& relative = GetParam();
  const std::vector<std::string> unit = lint_unit(relative);
  const std::string text = read_file(source_dir() / relative);
  const expect::ParsedExpectations parsed = expect::parse_expectations(text, "#");
  for (const expect::ExpectationError& error : parsed.errors) {
    ADD_FAILURE() << relative << ":" << error.line << ": malformed expectation: " << error.message;
  }

  // Default-on rules, plus every opt-in rule a marker or directive of the lint unit names.
  std::set<std::string> marked;
  std::set<std::string> directed;
  for (const std::string& member : unit) {
    const std::string member_text = member == relative ? text : read_file(source_dir() / member);
    for (const expect::Expectation& e : expect::parse_expectations(member_text, "#").expectations)
      marked.insert(e.code);
    directed.merge(fixture::directive_codes(member_text));
  }
  const RuleSet rule_set = fixture::rule_set(marked, directed);
  std::set<std::string> known_codes;
  for (const Rule* rule : all_rules()) known_codes.insert(std::string(rule->info.code));
  for (const expect::Expectation& e : parsed.expectations) {
    // GL000 (parse-error) may come from the engine rather than from a registered rule.
    if (known_codes.count(e.code) == 0 && e.code != "GL000") {
      ADD_FAILURE() << relative << ":" << e.written_on << ": names " << e.code
                    << ", which no rule has";
    }
  }
  for (const std::string& code : fixture::directive_codes(text)) {
    if (known_codes.count(code) == 0) {
      ADD_FAILURE() << relative << ": `gpulint-test: select=` names " << code
                    << ", which no rule has";
    }
  }

  std::vector<Diagnostic> diagnostics;
  if (unit.size() == 1 && project_of(relative).empty()) {
    diagnostics = lint_source(SourceFile(relative, text), rule_set);
  } else {
    // A project: all its files at once, then this file's findings.
    std::vector<std::string> paths;
    for (const std::string& member : unit) paths.push_back((source_dir() / member).string());
    LintOptions options;
    options.rules = rule_set.rules;
    options.rule_set_for = [&rule_set](const std::string&) { return &rule_set; };
    options.jobs = 1;
    LintResult result = lint_files(paths, options);
    for (const FileError& error : result.errors) {
      ADD_FAILURE() << error.path << ": " << error.message;
    }
    const std::string own = (source_dir() / relative).string();
    for (Diagnostic& d : result.diagnostics) {
      if (d.location.path == own) diagnostics.push_back(std::move(d));
    }
  }
  std::vector<expect::Actual> actuals;
  actuals.reserve(diagnostics.size());
  for (const Diagnostic& d : diagnostics) {
    actuals.push_back({d.code, d.location.start.line, d.location.start.column, d.message});
  }

  const expect::MatchResult result = expect::match(parsed.expectations, actuals);
  if (result.ok()) return;
  std::ostringstream report;
  report << relative << ": findings differ from the expectations";
  if (unit.size() > 1) report << " (linted with the " << unit.size() << " files of its project)";
  report << "\n";
  for (const expect::Expectation& e : result.missing) {
    report << "  missing:    " << relative << ":" << e.line;
    if (e.column) report << ":" << *e.column;
    report << ": " << e.code;
    if (!e.fragment.empty()) report << " \"" << e.fragment << "\"";
    report << "  (" << kind_name(e.kind) << " on line " << e.written_on << ")";
    if (e.kind == expect::Kind::KnownFalse) {
      report << ": the false positive is gone; delete the marker";
    }
    report << "\n";
  }
  for (const expect::Expectation& e : result.now_reported) {
    report << "  now found:  " << relative << ":" << e.line << ": " << e.code
           << "  (known-miss on line " << e.written_on
           << "): the tool reports it now; make the marker `expect`\n";
  }
  for (const expect::Actual& a : result.unexpected) {
    report << "  unexpected: " << relative << ":" << a.line << ":" << a.column << ": " << a.code
           << " " << a.message << "\n";
  }
  report << "  all findings:\n";
  if (actuals.empty()) report << "    (none)\n";
  for (const expect::Actual& a : actuals) {
    report << "    " << relative << ":" << a.line << ":" << a.column << ": " << a.code << " "
           << a.message << "\n";
  }
  ADD_FAILURE() << report.str();
}

INSTANTIATE_TEST_SUITE_P(Python, PythonFixture, ::testing::ValuesIn(python_fixtures()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return case_name(info.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PythonFixture);

// The runner must find the fixtures; an empty run would pass silently.
TEST(FixtureRunner, FindsPythonFixtures) {
  EXPECT_FALSE(python_fixtures().empty())
      << "no .py files under " << (source_dir() / "fixtures" / "python").string();
}

// Every rule has at least as many silent fixture cases as firing ones (ARCHITECTURE.md):
// counted per fixture file, a file is firing for the codes it expects.
TEST(FixtureRunner, EveryExpectedCodeHasASilentFixture) {
  std::set<std::string> codes;
  for (const std::string& relative : python_fixtures()) {
    const std::string name = fs::path(relative).filename().string();
    if (name.size() > 6 && name.compare(0, 2, "GL") == 0 && name[5] == '_') {
      codes.insert(name.substr(0, 5));
    }
  }
  for (const std::string& code : codes) {
    size_t firing = 0;
    size_t silent = 0;
    for (const std::string& relative : python_fixtures()) {
      const std::string name = fs::path(relative).filename().string();
      if (name.compare(0, 6, code + "_") != 0) continue;
      const expect::ParsedExpectations parsed =
          expect::parse_expectations(read_file(source_dir() / relative), "#");
      const bool fires = std::any_of(parsed.expectations.begin(), parsed.expectations.end(),
                                     [&](const expect::Expectation& e) {
                                       return e.code == code && e.kind != expect::Kind::KnownMiss;
                                     });
      (fires ? firing : silent)++;
    }
    if (code == "GL000") continue;  // a parse error has no silent counterpart
    EXPECT_GE(silent, firing) << code << ": " << firing << " firing fixture files but only "
                              << silent << " silent ones";
  }
}

// Precision and recall over the realistic corpus, from its markers. Reports; asserts only the
// corpus size (the goals, precision >= 0.95 and recall >= 0.9, are for people to read).
TEST(RealisticCorpus, PrecisionAndRecall) {
  std::vector<std::string> files;
  for (const std::string& relative : python_fixtures()) {
    if (relative.compare(0, kRealistic.size(), kRealistic) == 0) files.push_back(relative);
  }
  std::vector<expect::Expectation> all;
  std::ostringstream disagreements;
  for (const std::string& relative : files) {
    const expect::ParsedExpectations parsed =
        expect::parse_expectations(read_file(source_dir() / relative), "#");
    for (const expect::Expectation& e : parsed.expectations) {
      all.push_back(e);
      if (e.kind != expect::Kind::Expect) {
        disagreements << "  " << kind_name(e.kind) << " " << e.code << "  " << relative << ":"
                      << e.line << "\n";
      }
    }
  }
  const std::map<std::string, expect::Tally> by_code = expect::tally(all);
  std::ostringstream report;
  report << "gpulint precision and recall on " << kRealistic << "** (" << files.size()
         << " files; expect = TP, known-false = FP, known-miss = FN)\n"
         << expect::format_precision_table(by_code);
  if (!disagreements.str().empty())
    report << "disagreements with the ground truth:\n" << disagreements.str();
  std::cout << report.str() << std::flush;
  expect::Tally total;
  for (const auto& [code, t] : by_code) total += t;
  RecordProperty("files", static_cast<int>(files.size()));
  RecordProperty("tp", static_cast<int>(total.tp));
  RecordProperty("fp", static_cast<int>(total.fp));
  RecordProperty("fn", static_cast<int>(total.fn));
  if (const char* path = std::getenv("GPULINT_PRECISION_REPORT"); path != nullptr && *path != 0) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << report.str();
    EXPECT_TRUE(out.good()) << "cannot write " << path;
  }
  EXPECT_GE(files.size(), 30u) << "the realistic corpus needs at least 30 files";
}

}  // namespace
}  // namespace gpulint

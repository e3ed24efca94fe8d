// The fixture runner: every fixtures/python/**/*.py is linted with the default-on rules plus the
// opt-in rules its expectations name, and its findings must equal its inline expectations
// (tests/expectations.h). One parameterised case per fixture file, named after the file.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/expectations.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

const fs::path& source_dir() {
  static const fs::path dir(GPULINT_SOURCE_DIR);
  return dir;
}

// Fixture paths relative to the repository root, sorted.
std::vector<std::string> python_fixtures() {
  std::vector<std::string> paths;
  const fs::path root = source_dir() / "fixtures" / "python";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return paths;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".py") {
      paths.push_back(it->path().lexically_relative(source_dir()).generic_string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// `fixtures/python/realistic/lightning_module.py` -> `realistic_lightning_module`.
std::string case_name(const std::string& relative) {
  std::string name = fs::path(relative).lexically_relative("fixtures/python").replace_extension().generic_string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class PythonFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonFixture, MatchesExpectations) {
  const std::string& relative = GetParam();
  const std::string text = read_file(source_dir() / relative);
  const expect::ParsedExpectations parsed = expect::parse_expectations(text, "#");
  for (const expect::ExpectationError& error : parsed.errors) {
    ADD_FAILURE() << relative << ":" << error.line << ": malformed expectation: " << error.message;
  }

  // Default-on rules, plus every opt-in rule the fixture expects.
  std::set<std::string> expected_codes;
  for (const expect::Expectation& e : parsed.expectations) expected_codes.insert(e.code);
  std::vector<const Rule*> rules;
  std::set<std::string> known_codes;
  for (const Rule* rule : all_rules()) {
    const std::string code(rule->info.code);
    known_codes.insert(code);
    if (rule->info.default_on || expected_codes.count(code) != 0) rules.push_back(rule);
  }
  for (const std::string& code : expected_codes) {
    // GL000 (parse-error) may come from the engine rather than from a registered rule.
    if (known_codes.count(code) == 0 && code != "GL000") {
      ADD_FAILURE() << relative << ": expects " << code << ", which no rule has";
    }
  }

  const SourceFile file(relative, text);
  const std::vector<Diagnostic> diagnostics = lint_source(file, rules);
  std::vector<expect::Actual> actuals;
  actuals.reserve(diagnostics.size());
  for (const Diagnostic& d : diagnostics) {
    actuals.push_back({d.code, d.location.start.line, d.location.start.column, d.message});
  }

  const expect::MatchResult result = expect::match(parsed.expectations, actuals);
  if (result.ok()) return;
  std::ostringstream report;
  report << relative << ": findings differ from the expectations\n";
  for (const expect::Expectation& e : result.missing) {
    report << "  missing:    " << relative << ":" << e.line;
    if (e.column) report << ":" << *e.column;
    report << ": " << e.code;
    if (!e.fragment.empty()) report << " \"" << e.fragment << "\"";
    report << "  (expectation on line " << e.written_on << ")\n";
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
  EXPECT_FALSE(python_fixtures().empty()) << "no .py files under "
                                          << (source_dir() / "fixtures" / "python").string();
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
                                     [&](const expect::Expectation& e) { return e.code == code; });
      (fires ? firing : silent)++;
    }
    if (code == "GL000") continue;  // a parse error has no silent counterpart
    EXPECT_GE(silent, firing) << code << ": " << firing << " firing fixture files but only " << silent
                              << " silent ones";
  }
}

}  // namespace
}  // namespace gpulint

// Every fixtures/cpp/**/*.cpp is linted with the default-on rules (plus opt-in rules its
// markers name) and its findings must equal its inline `// expect:` markers: a missing
// finding and any unexpected finding fail.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/core/source_file.h"
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

// fixtures/cpp/clang/ holds the Clang path's fixtures (tests/cpp/cpp_clang_test.cpp).
std::vector<std::string> cpp_fixtures() { return testing::fixture_files("cpp", ".cpp", "clang"); }

class CppFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CppFixture, MatchesExpectations) {
  const std::string& relative = GetParam();
  const std::string text = read_file(source_dir() / relative);
  const expect::ParsedExpectations parsed = expect::parse_expectations(text, "//");
  for (const expect::ExpectationError& error : parsed.errors)
    ADD_FAILURE() << relative << ":" << error.line << ": malformed expectation: " << error.message;
  std::set<std::string> marked;
  for (const expect::Expectation& e : parsed.expectations) marked.insert(e.code);
  const RuleSet rule_set = fixture::rule_set(marked, {});

  std::vector<expect::Actual> actuals;
  for (const Diagnostic& d : lint_source(SourceFile(relative, text), rule_set)) {
    actuals.push_back({d.code, d.location.start.line, d.location.start.column, d.message});
    // A C++ finding tells the fix in LibTorch's spelling (RuleInfo::help_cpp), never Python's.
    const auto rule = std::find_if(all_rules().begin(), all_rules().end(),
                                   [&](const Rule* r) { return r->info.code == d.code; });
    ASSERT_NE(rule, all_rules().end()) << d.code;
    if ((*rule)->info.kind == RuleKind::Code) {
      EXPECT_FALSE(d.help.empty()) << relative << ": " << d.code << " has no C++ help";
      EXPECT_EQ(d.help, (*rule)->info.help_cpp) << relative;
    }
  }
  const expect::MatchResult result = expect::match(parsed.expectations, actuals);
  for (const expect::Expectation& e : result.missing)
    ADD_FAILURE() << relative << ":" << e.line << ": missing " << e.code;
  for (const expect::Actual& a : result.unexpected)
    ADD_FAILURE() << relative << ":" << a.line << ":" << a.column << ": unexpected " << a.code
                  << ": " << a.message;
  for (const expect::Expectation& e : result.now_reported)
    ADD_FAILURE() << relative << ":" << e.line << ": " << e.code
                  << " is found now; flip its known-miss marker to expect";
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name =
      fs::path(info.param).lexically_relative("fixtures/cpp").replace_extension().generic_string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CppFixture, ::testing::ValuesIn(cpp_fixtures()), case_name);

}  // namespace
}  // namespace gpulint

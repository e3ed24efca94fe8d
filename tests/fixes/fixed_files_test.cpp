// Every fixture's fixes applied as `gpulint --fix --unsafe-fixes` applies them (round by round
// until nothing more applies) must give the fixture's expected fixed file, `NAME.fixed` beside
// it, as clang-tidy's CHECK-FIXES and Ruff's fix snapshots pin a fix's exact text. The fixed
// text parses no worse, carries no fix any more (a second --fix changes nothing), and a fixture
// whose findings carry no fix has no fixed file.
//
// After a deliberate change to a fix, GPULINT_UPDATE_FIXED=1 rewrites the fixed files; review
// them with `git diff` before committing.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analyzer/engine.h"
#include "analyzer/fixes/apply.h"
#include "tests/expectations.h"
#include "tests/fixture_files.h"
#include "tests/fixture_selection.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::source_dir;

std::vector<std::string> fixtures() {
  std::vector<std::string> out = testing::fixture_files("python", ".py");
  for (const std::string& cpp : testing::fixture_files("cpp", ".cpp", "clang")) out.push_back(cpp);
  return out;
}

size_t syntax_errors(const std::vector<Diagnostic>& diagnostics) {
  return std::count_if(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.code == "GL000"; });
}

class FixedFile : public ::testing::TestWithParam<std::string> {};

TEST_P(FixedFile, MatchesTheExpectedFixedText) {
  const std::string& relative = GetParam();
  const std::string text = read_file(source_dir() / relative);
  const bool cpp = relative.ends_with(".cpp");
  std::set<std::string> marked;
  for (const expect::Expectation& e :
       expect::parse_expectations(text, cpp ? "//" : "#").expectations)
    marked.insert(e.code);
  const RuleSet rules = fixture::rule_set(marked, fixture::directive_codes(text));

  std::string fixed = text;
  std::vector<Diagnostic> diagnostics = lint_source(SourceFile(relative, fixed), rules);
  const size_t errors_before = syntax_errors(diagnostics);
  for (int round = 0; round < 10; ++round) {
    std::vector<const Diagnostic*> all;
    for (const Diagnostic& d : diagnostics) all.push_back(&d);
    FixedText next = apply_fixes(fixed, all, /*unsafe=*/true);
    if (next.applied == 0) break;
    fixed = std::move(next.text);
    diagnostics = lint_source(SourceFile(relative, fixed), rules);
  }
  for (const Diagnostic& d : diagnostics) {
    EXPECT_FALSE(d.fix.has_value()) << relative << ": " << d.code << " at line "
                                    << d.location.start.line << " still carries a fix";
  }
  EXPECT_LE(syntax_errors(diagnostics), errors_before) << relative;

  const fs::path expected = source_dir() / (relative + ".fixed");
  const char* update = std::getenv("GPULINT_UPDATE_FIXED");
  if (update != nullptr && std::string(update) == "1") {
    if (fixed == text) {
      fs::remove(expected);
    } else {
      std::ofstream(expected, std::ios::binary) << fixed;
    }
    return;
  }
  if (fixed == text) {
    EXPECT_FALSE(fs::exists(expected)) << relative << ": nothing to fix, yet a fixed file";
  } else {
    ASSERT_TRUE(fs::exists(expected))
        << relative << ": its fixes have no expected fixed file (GPULINT_UPDATE_FIXED=1)";
    EXPECT_EQ(fixed, read_file(expected)) << relative;
  }
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).lexically_relative("fixtures").generic_string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixedFile, ::testing::ValuesIn(fixtures()), case_name);

// A fixed file belongs to a fixture: none is left over after its fixture went.
TEST(FixedFiles, EachBelongsToAFixture) {
  for (const char* dir : {"fixtures/python", "fixtures/cpp"}) {
    for (const auto& entry : fs::recursive_directory_iterator(source_dir() / dir)) {
      const fs::path path = entry.path();
      if (path.extension() != ".fixed") continue;
      EXPECT_TRUE(fs::exists(fs::path(path).replace_extension(""))) << path;
    }
  }
}

}  // namespace
}  // namespace gpulint

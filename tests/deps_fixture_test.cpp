// Dependency-file fixtures (GL304): requirements*.txt, pyproject.toml, setup.cfg and
// environment.yml under fixtures/deps/, with the same inline `# expect:` markers as Python.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/core/language.h"
#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/expectations.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> dependency_fixtures() {
  std::vector<std::string> out;
  const fs::path root = fs::path(GPULINT_SOURCE_DIR) / "fixtures" / "deps";
  if (!fs::exists(root)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && is_dependency_file(entry.path().filename().string())) {
      out.push_back(fs::relative(entry.path(), GPULINT_SOURCE_DIR).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class DependencyFixture : public testing::TestWithParam<std::string> {};

TEST_P(DependencyFixture, MatchesExpectations) {
  std::ifstream in(fs::path(GPULINT_SOURCE_DIR) / GetParam(), std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<const Rule*> rules;
  for (const Rule* rule : all_rules()) {
    if (rule->info.default_on) rules.push_back(rule);
  }
  const SourceFile file(GetParam(), text);
  std::vector<expect::Actual> actuals;
  for (const Diagnostic& d : lint_source(file, rules)) {
    actuals.push_back({d.code, d.location.start.line, d.location.start.column, d.message});
  }
  const expect::ParsedExpectations parsed = expect::parse_expectations(text);
  ASSERT_TRUE(parsed.errors.empty())
      << GetParam() << ": malformed expectation on line " << parsed.errors.front().line;
  const expect::MatchResult result = expect::match(parsed.expectations, actuals);
  std::string report;
  for (const auto& e : result.missing)
    report += "  missing " + e.code + " on line " + std::to_string(e.line) + "\n";
  for (const auto& a : result.unexpected) {
    report += "  unexpected " + a.code + " at " + std::to_string(a.line) + ":" +
              std::to_string(a.column) + " " + a.message + "\n";
  }
  EXPECT_TRUE(result.ok()) << GetParam() << "\n" << report;
}

std::string name_of(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(std::string("fixtures/deps/").size());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Deps, DependencyFixture, testing::ValuesIn(dependency_fixtures()),
                         name_of);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DependencyFixture);

}  // namespace
}  // namespace gpulint

// Fixes as data: every fixture under fixtures/python/ is linted as the fixture runner lints it
// (tests/fixture_selection.h), and each finding's fix is applied, on its own, to the fixture's
// text. A fix applies cleanly when its edits stay inside the file, do not overlap, the fixed
// text parses with no more GL000 than before, and re-linting it no longer reports that code
// where the finding was. Every rule that carries fixes must have a fixture that exercises one.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/engine.h"
#include "tests/expectations.h"
#include "tests/fixture_files.h"
#include "tests/fixture_selection.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::source_dir;

std::vector<std::string> python_fixtures() { return testing::fixture_files("python", ".py"); }

RuleSet rules_for(const std::string& text) {
  std::set<std::string> marked;
  for (const expect::Expectation& e : expect::parse_expectations(text, "#").expectations)
    marked.insert(e.code);
  return fixture::rule_set(marked, fixture::directive_codes(text));
}

size_t parse_errors(const std::vector<Diagnostic>& diagnostics) {
  return std::count_if(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.code == "GL000"; });
}

// Where byte `offset` of the original text lies after the edits (sorted, disjoint).
uint32_t shifted(uint32_t offset, const std::vector<Edit>& edits) {
  int64_t delta = 0;
  for (const Edit& e : edits) {
    if (e.span.end > offset || (e.span.begin == e.span.end && e.span.begin == offset)) break;
    delta += static_cast<int64_t>(e.replacement.size()) - (e.span.end - e.span.begin);
  }
  return static_cast<uint32_t>(static_cast<int64_t>(offset) + delta);
}

// The edits of `fix`, sorted; a failure says why they cannot be applied to `text`.
::testing::AssertionResult applicable(const Fix& fix, const std::string& text,
                                      std::vector<Edit>& sorted) {
  if (fix.edits.empty()) return ::testing::AssertionFailure() << "a fix without edits";
  sorted = fix.edits;
  std::sort(sorted.begin(), sorted.end(), [](const Edit& a, const Edit& b) {
    return a.span.begin != b.span.begin ? a.span.begin < b.span.begin : a.span.end < b.span.end;
  });
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Span s = sorted[i].span;
    if (s.begin > s.end || s.end > text.size()) {
      return ::testing::AssertionFailure() << "edit [" << s.begin << ", " << s.end
                                           << ") outside the file (" << text.size() << " bytes)";
    }
    if (i > 0 && sorted[i - 1].span.end > s.begin) {
      return ::testing::AssertionFailure() << "edits overlap at byte " << s.begin;
    }
  }
  return ::testing::AssertionSuccess();
}

std::string apply_edits(const std::string& text, const std::vector<Edit>& sorted) {
  std::string out;
  uint32_t at = 0;
  for (const Edit& e : sorted) {
    out.append(text, at, e.span.begin - at);
    out += e.replacement;
    at = e.span.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

class FixtureFixes : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureFixes, ApplyCleanly) {
  const std::string& relative = GetParam();
  const std::string text = read_file(source_dir() / relative);
  const RuleSet rules = rules_for(text);
  const std::vector<Diagnostic> before = lint_source(SourceFile(relative, text), rules);
  const size_t errors_before = parse_errors(before);
  for (const Diagnostic& d : before) {
    if (!d.fix) continue;
    const std::string where = relative + ":" + std::to_string(d.location.start.line) + ":" +
                              std::to_string(d.location.start.column) + " " + d.code;
    std::vector<Edit> sorted;
    const ::testing::AssertionResult ok = applicable(*d.fix, text, sorted);
    EXPECT_TRUE(ok) << where << ": " << d.fix->message;
    if (!ok) continue;
    const std::string fixed = apply_edits(text, sorted);
    EXPECT_NE(fixed, text) << where << ": the fix changes nothing";
    const std::vector<Diagnostic> after = lint_source(SourceFile(relative, fixed), rules);
    EXPECT_LE(parse_errors(after), errors_before)
        << where << ": the fixed text no longer parses\n--- fixed text ---\n"
        << fixed;
    const uint32_t moved = shifted(d.location.span.begin, sorted);
    for (const Diagnostic& a : after) {
      EXPECT_FALSE(a.code == d.code && a.location.span.begin == moved)
          << where << ": still reported after `" << d.fix->message << "`: " << a.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Python, FixtureFixes, ::testing::ValuesIn(python_fixtures()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = fs::path(info.param)
                                                  .lexically_relative("fixtures/python")
                                                  .replace_extension()
                                                  .generic_string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The rules that carry fixes (issue 3, "Fixes as data"), with the applicabilities each states:
// GL303's is safe for a constant fill and unsafe for a random draw or a computed range.
const std::map<std::string, std::set<Applicability>>& fix_carrying_rules() {
  using enum Applicability;
  static const std::map<std::string, std::set<Applicability>> rules = {
      {"GL001", {Safe}},   {"GL104", {Unsafe}},       {"GL201", {Unsafe}}, {"GL202", {Safe}},
      {"GL203", {Unsafe}}, {"GL303", {Safe, Unsafe}}, {"GL402", {Safe}},   {"GL502", {Safe}},
      {"GL504", {Unsafe}}, {"GL506", {Unsafe}},       {"GL509", {Unsafe}},
  };
  return rules;
}

// Every rule that carries fixes has fixtures that exercise each applicability the rule states.
TEST(FixesAsData, EveryFixCarryingRuleIsExercised) {
  std::map<std::string, size_t> applied;
  std::map<std::string, std::set<Applicability>> applicability;
  for (const std::string& relative : python_fixtures()) {
    const std::string text = read_file(source_dir() / relative);
    for (const Diagnostic& d : lint_source(SourceFile(relative, text), rules_for(text))) {
      if (!d.fix) continue;
      ++applied[d.code];
      applicability[d.code].insert(d.fix->applicability);
    }
  }
  for (const auto& [code, expected] : fix_carrying_rules()) {
    EXPECT_GT(applied[code], 0u) << code << " carries fixes but no fixture exercises one";
    EXPECT_EQ(applicability[code], expected) << code << ": fixes of an unexpected applicability";
  }
  for (const auto& [code, count] : applied) {
    EXPECT_TRUE(fix_carrying_rules().count(code) != 0)
        << code << " carries fixes (" << count << " in the fixtures); list it in this test";
  }
}

}  // namespace
}  // namespace gpulint

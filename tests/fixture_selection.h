#pragma once

// Which rules a fixture is linted with, for the fixture runner and the fixes test alike: the
// default-on rules, plus every opt-in rule the fixture's markers name, plus the rules a
// directive at the top of the file selects, so a silent fixture can run an opt-in rule:
//
//   # gpulint-test: select=GL203,GL404
//
// Rules the directive names, and opt-in rules a marker names, count as named in --select
// (explicitly selected). A marker naming a default-on rule changes nothing, so a realistic
// fixture is measured with the default rules; the directive is what turns on the opt-in form of
// a default-on rule (GL404's implicit form).
// Header-only because tests/CMakeLists.txt compiles only *_test.cpp files.

#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "analyzer/core/rule_set.h"
#include "rules/registry.h"

namespace gpulint::fixture {

constexpr std::string_view kDirective = "# gpulint-test: select=";

// The codes of every `# gpulint-test: select=` line (whole-line comments only).
inline std::set<std::string> directive_codes(std::string_view text) {
  std::set<std::string> codes;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, kDirective.size(), kDirective) != 0) continue;
    std::istringstream list(line.substr(kDirective.size()));
    for (std::string code; std::getline(list, code, ',');) {
      while (!code.empty() && (code.back() == ' ' || code.back() == '\r')) code.pop_back();
      while (!code.empty() && code.front() == ' ') code.erase(code.begin());
      if (!code.empty()) codes.insert(code);
    }
  }
  return codes;
}

// `marked`: the codes of the unit's markers; `directed`: those of its directives.
inline RuleSet rule_set(const std::set<std::string>& marked, const std::set<std::string>& directed) {
  RuleSet set;
  set.known = all_rules();
  for (const Rule* rule : all_rules()) {
    const std::string code(rule->info.code);
    const bool selected =
        directed.count(code) != 0 || (!rule->info.default_on && marked.count(code) != 0);
    if (rule->info.default_on || selected) set.rules.push_back(rule);
    if (selected) set.explicitly_selected.push_back(code);
  }
  return set;
}

}  // namespace gpulint::fixture

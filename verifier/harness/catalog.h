#pragma once

// Which experiment measures which rule: one experiment per rule family (RULES.md), and the
// only place that maps rule codes to experiments.

#include <string>
#include <string_view>
#include <vector>

namespace gpulint::verifier {

struct ExperimentInfo {
  std::string_view name;                // "sync"
  std::vector<std::string_view> rules;  // the codes whose cost it measures
  std::string_view what;                // one line for people
};

// In the order the suite runs them.
const std::vector<ExperimentInfo>& experiment_catalog();
const ExperimentInfo* find_experiment(std::string_view name);
const ExperimentInfo* experiment_for_rule(std::string_view code);

struct RuleSelection {
  std::vector<std::string> experiments;  // catalog order, each once
  std::vector<std::string> unmeasured;   // codes no experiment measures, in the order given
};
RuleSelection experiments_for_rules(const std::vector<std::string>& codes);

}  // namespace gpulint::verifier

#pragma once

// The verifier's experiments, one per rule family (RULES.md), in the order the suite runs them.
// Which experiment measures which rule is the rule's own metadata (`Rule::measure`).

#include <string_view>
#include <vector>

namespace gpulint::verifier {

struct ExperimentInfo {
  std::string_view name;  // "sync"
  std::string_view what;  // one line for people
};

const std::vector<ExperimentInfo>& experiment_catalog();
const ExperimentInfo* find_experiment(std::string_view name);

}  // namespace gpulint::verifier

#pragma once

#include <span>
#include <string>
#include <vector>

#include "analyzer/core/rule.h"

namespace gpulint {

// What one file is checked with, after config files and the command line had their say.
struct RuleSet {
  std::vector<const Rule*> rules;                // enabled, in code order
  std::vector<std::string> explicitly_selected;  // codes a select named in full (opt-in forms)
  RuleOptions options;                           // `explicitly_selected` is set per rule
  // Every rule gpulint has, enabled or not: a suppression naming none of them is a mistake.
  std::span<const Rule* const> known;
};

}  // namespace gpulint

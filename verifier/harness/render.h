#pragma once

// The text table `gpulint verify` prints: the device and its clocks, every figure with its
// spread, each experiment's notes and errors, then the cost of each rule.

#include <string>
#include <vector>

#include "verifier/harness/params.h"
#include "verifier/harness/report.h"

namespace gpulint::verifier {

struct RuleCost {
  std::string code;
  std::string name;
  std::string experiment;
  std::string summary;  // the cost, or why there is none
  bool measured = false;
};

// The cost of every rule of the experiments that ran (catalog order, then code order).
std::vector<RuleCost> rule_costs(const Report& report, const Params& params);

std::string render_table(const Report& report, const std::vector<RuleCost>& costs);

}  // namespace gpulint::verifier

#pragma once

// From measurements to costs: the two figures of a rule's experiment (its `Rule::measure`,
// filled in with the run's parameters and what a finding knows statically), and attaching the
// cost to each finding.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/cost.h"
#include "analyzer/core/diagnostic.h"
#include "verifier/harness/params.h"
#include "verifier/harness/report.h"

namespace gpulint::verifier {

// What one finding knows statically (its parameters), beyond the defaults.
struct FindingParams {
  std::optional<int64_t> batch_size;     // GL206: the literal batch_size, 1 when absent
  std::optional<int64_t> unaligned_dim;  // GL405: the size that is not a multiple of 8
  std::optional<bool> random_fill;       // GL303: a random factory (rand*) or a constant one
};
FindingParams finding_params(const Diagnostic& d);

// The figure pair for a rule: `bad` is the pattern the rule flags, `good` its fix.
struct CostSpec {
  std::string experiment;
  std::string bad;
  std::string good;
  std::string what;  // what the difference is, for people
};
std::optional<CostSpec> cost_spec(std::string_view code, const Params& params,
                                  const FindingParams& finding = {});

// The experiments that measure these rules, in suite order, and the rules none measures.
struct RuleSelection {
  std::vector<std::string> experiments;  // catalog order, each once
  std::vector<std::string> unmeasured;   // codes no experiment measures, in the order given
};
RuleSelection experiments_for_rules(const std::vector<std::string>& codes);

// The codes an experiment measures, in code order.
std::vector<std::string> rules_of_experiment(std::string_view experiment);

// The cost of a rule from a finished report; nothing when its experiment did not run, failed,
// or lacks either figure.
std::optional<Cost> cost_for(std::string_view code, const Report& report, const Params& params,
                             const FindingParams& finding = {});

// The parameters for the experiments that measure these findings: the experiments of the
// rules that fired, plus each finding's batch size and unaligned dimension.
Params plan_for(const std::vector<Diagnostic>& diagnostics, Params base);

// Sets `cost` on every diagnostic whose rule was measured; returns how many got one.
size_t attach_costs(std::vector<Diagnostic>& diagnostics, const Report& report,
                    const Params& params);

// Three significant digits, no exponent for everyday magnitudes: 0.0123, 1.23, 123, 12300.
std::string format_figure(double value);

}  // namespace gpulint::verifier

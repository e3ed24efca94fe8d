#pragma once

// Small helpers the rule files share: how a finding names where it runs.

#include <string>

#include "analyzer/core/rule.h"

namespace gpulint::rules {

// False for test files (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`) unless the config
// says `test-code = true`: their loaders and loops are not training code (GL2xx, GL401).
inline bool judged_as_training_code(const RuleInput& in) {
  return !in.model.test_code || in.options.test_code;
}

// "the training loop", "the evaluation loop", "a per-step hook"
std::string step_place(const StepModel& model, const StepContext& context);

// " (called per step through a helper)" when the context was reached through call sites.
std::string via_suffix(const StepContext& context);

// Reports each host sync of the given kinds that runs per step and is not interval-guarded,
// in CUDA context: "`.item()` in the training loop <effect>".
void report_per_step_syncs(const RuleInput& in, Sink& sink, std::initializer_list<SyncKind> kinds,
                           std::string_view effect);

}  // namespace gpulint::rules

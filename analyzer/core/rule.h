#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/step_model.h"

namespace gpulint {

// How often a rule's findings are right, as SARIF `properties.precision` states it to code
// scanning (which sorts and filters alerts by it).
enum class Precision { VeryHigh, High, Medium, Low };

// What a rule is, independent of any finding. `docs` is Markdown with the sections
// "What it does", "Why is this bad", "Example", "Use instead".
struct RuleInfo {
  std::string_view code;     // GL101
  std::string_view name;     // item-in-loop
  std::string_view family;   // sync, data, placement, precision, overhead, meta
  std::string_view summary;  // one line, for `gpulint rules` and SARIF shortDescription
  std::string_view help;     // the one-line fix printed under each finding
  std::string_view docs;
  bool default_on = true;
  Severity severity = Severity::Warning;
  Precision precision = Precision::High;
};

// A finding as a rule states it, in byte spans of the file being checked.
struct Finding {
  Span span;
  std::string message;
  std::vector<std::pair<Span, std::string>> related;
  std::optional<Fix> fix;
  // In other files: the call site in another module. Initialised so rules may leave it out.
  std::vector<Related> related_elsewhere = {};
};

// Where a rule puts its findings; the engine turns them into diagnostics.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void report(Finding finding) = 0;
};

// Per-rule settings a user can change (config `[tool.gpulint.rules]`, later).
struct RuleOptions {
  int64_t small_batch_threshold = 8;  // GL206
  bool test_code = false;             // judge test files as training code (GL2xx, GL401)
  bool explicitly_selected = false;   // the rule's own code was named in --select (opt-in forms)
};

// What a rule reads: the step model's facts (and the user's settings), never the source text.
struct RuleInput {
  const StepModel& model;
  RuleOptions options = {};
};

struct Rule {
  RuleInfo info;
  void (*check)(const RuleInput& input, Sink& sink);
};

// Adds "called per step from here" related locations for a finding inside a helper.
void add_call_sites(Finding& finding, const StepContext& context);

}  // namespace gpulint

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

// What a rule's findings are about. Most are about the code; GL000's about the file's syntax
// (SARIF states them as notifications, not results); GL001's about the run's suppression
// comments, which only the engine can judge, once every other rule has run.
// GL002's about the codes suppression comments name, which only the rule table can judge.
enum class RuleKind : uint8_t { Code, Syntax, Suppressions, SuppressionCodes };

// What a rule is, independent of any finding. `docs` is Markdown with the sections
// "What it does", "Why is this bad", "Example", "Use instead".
struct RuleInfo {
  std::string_view code;      // GL101
  std::string_view name;      // item-in-loop
  std::string_view family;    // sync, data, placement, precision, overhead, meta
  std::string_view summary;   // one line, for `gpulint rules` and SARIF shortDescription
  std::string_view help;      // the one-line fix printed under each finding
  std::string_view help_cpp;  // the same in LibTorch's spelling, for C++ files; empty: none
  std::string_view docs;
  bool default_on = true;
  Severity severity = Severity::Warning;
  Precision precision = Precision::High;
  RuleKind kind = RuleKind::Code;
};

// A finding as a rule states it, in byte spans of the file being checked.
struct Finding {
  Span span;
  std::string message;
  std::vector<std::pair<Span, std::string>> related;
  std::optional<Fix> fix;
  // In other files: the call site in another module. Initialised so rules may leave it out.
  std::vector<Related> related_elsewhere = {};
  // What the finding knows statically that changes its cost (GL206 `batch_size`, GL405
  // `dimension`, GL303 `random_fill`); `gpulint verify` sizes its experiments by them.
  std::vector<std::pair<std::string, int64_t>> parameters = {};
  // In a helper a step loop calls: the call sites that reach it, as a key (add_call_sites).
  // The engine reports a rule's findings with the same key once, at the first, with the others
  // as related locations: nine writes in one logging helper are one finding, not nine.
  std::string helper = {};
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

// How `gpulint verify` measures a rule's cost: one experiment and two of its figures, the
// pattern the rule flags (`bad`) and its fix (`good`), and what the difference is, for people.
// They may name the run's parameters in braces, which the verifier fills in: `{profile}`,
// `{kernels}`, `{gemm}`, `{cpu_gemm}`, `{layer}`, `{batch_shape}`, `{workers}`,
// `{alloc_buffers}`, and from the finding's parameters `{batch}` and `{reference_batch}`
// (GL206), `{dim}` and `{dim_aligned}` (GL405), `{fill}` and `{fill_key}` (GL303).
struct Measure {
  std::string_view experiment;  // empty: no experiment measures the rule
  std::string_view bad;
  std::string_view good;
  std::string_view what;
};

// The GPU-utilisation shapes `gpulint watch` names (watch/classifier.h) that a rule's pattern
// produces, as flags: watch suggests the rules of the shape it sees.
namespace shape {
inline constexpr uint8_t kIdle = 1 << 0;
inline constexpr uint8_t kSpikeThenZero = 1 << 1;
inline constexpr uint8_t kSawTooth = 1 << 2;
inline constexpr uint8_t kFlatLow = 1 << 3;
inline constexpr uint8_t kHealthy = 1 << 4;
}  // namespace shape

// What `gpulint profile` sees in a run where a rule's pattern runs (the synchronising calls of
// profile/run_record.h, and the host's own work at the finding's line, sampled while the GPU
// idled), as flags: a synchronising line the run shows and no rule found is reported as the
// rule whose evidence it is.
namespace evidence {
inline constexpr uint8_t kValueRead = 1 << 0;
inline constexpr uint8_t kCopyToHost = 1 << 1;
inline constexpr uint8_t kSynchronize = 1 << 2;
inline constexpr uint8_t kPrint = 1 << 3;
inline constexpr uint8_t kBranch = 1 << 4;
inline constexpr uint8_t kDynamicShape = 1 << 5;
inline constexpr uint8_t kHostWork = 1 << 6;
}  // namespace evidence

struct Rule {
  RuleInfo info;
  void (*check)(const RuleInput& input, Sink& sink);
  Measure measure = {};
  uint8_t shapes = 0;
  uint8_t evidence = 0;
};

// Adds "called per step from here" related locations for a finding inside a helper, and its
// helper key.
void add_call_sites(Finding& finding, const StepContext& context);

}  // namespace gpulint

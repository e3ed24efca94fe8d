#include "rules/common.h"

#include <algorithm>

namespace gpulint::rules {

std::string step_place(const StepModel& model, const StepContext& context) {
  if (context.external) {
    return context.external->training ? "the training loop" : "the evaluation loop";
  }
  if (context.loop < 0) return "a per-step hook";
  return model.loops[context.loop].kind == LoopKind::Training ? "the training loop"
                                                              : "the evaluation loop";
}

std::string via_suffix(const StepContext& context) {
  if (context.external) {
    const ExternalCaller& caller = *context.external;
    const std::string& path = caller.via.empty() ? caller.call_site.path : caller.via.front().path;
    return " (in a helper called from it in " + path.substr(path.rfind('/') + 1) + ")";
  }
  return context.via.empty() ? "" : " (in a helper called from it)";
}

Edit append_keyword(std::string_view text, Span arguments, std::string_view keyword) {
  // `f()` -> `f(kw)`, `f(a, b)` -> `f(a, b, kw)`, `f(a,\n)` keeps the trailing comma style.
  uint32_t close = arguments.end - 1;
  uint32_t last = close;
  while (last > arguments.begin + 1 && (text[last - 1] == ' ' || text[last - 1] == '\n' ||
                                        text[last - 1] == '\t' || text[last - 1] == '\r')) {
    --last;
  }
  std::string insertion;
  if (last == arguments.begin + 1) {
    insertion.append(keyword);
  } else if (text[last - 1] == ',') {
    insertion.append(" ").append(keyword).append(",");
  } else {
    insertion.append(", ").append(keyword);
  }
  return {{last, last}, std::move(insertion)};
}

}  // namespace gpulint::rules

namespace gpulint::rules {

void report_per_step_syncs(const RuleInput& in, Sink& sink, std::initializer_list<SyncKind> kinds,
                           std::string_view effect) {
  if (!in.model.cuda_context()) return;
  for (const HostSync& sync : in.model.syncs) {
    if (std::find(kinds.begin(), kinds.end(), sync.kind) == kinds.end()) continue;
    StepContext context = in.model.step_context(sync.scope);
    if (!context.per_step() || context.interval_guarded) continue;
    Finding f{sync.span,
              "`" + sync.spelling + "` in " + step_place(in.model, context) + via_suffix(context) +
                  " " + std::string(effect),
              {},
              {}};
    add_call_sites(f, context);
    sink.report(std::move(f));
  }
}

}  // namespace gpulint::rules

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

void report_per_step_syncs(const RuleInput& in, Sink& sink, std::initializer_list<SyncKind> kinds,
                           std::string_view effect) {
  if (!in.model.cuda_context()) return;
  for (const HostSync& sync : in.model.syncs) {
    if (std::find(kinds.begin(), kinds.end(), sync.kind) == kinds.end()) continue;
    StepContext context = in.model.step_context(sync.scope);
    if (!context.unguarded_per_step()) continue;
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

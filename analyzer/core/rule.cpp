#include "analyzer/core/rule.h"

namespace gpulint {

void add_call_sites(Finding& finding, const StepContext& context) {
  constexpr const char* kFirst = "called from the step loop here";
  constexpr const char* kNext = "which calls it here";
  if (context.external) {
    for (const Location& at : context.external->via)
      finding.related_elsewhere.push_back({at, finding.related_elsewhere.empty() ? kFirst : kNext});
    finding.related_elsewhere.push_back(
        {context.external->call_site, finding.related_elsewhere.empty() ? kFirst : kNext});
  }
  for (size_t i = 0; i < context.via.size(); ++i) {
    if (i == StepContext::kViaOuter && context.via_elided > 0) {
      finding.related.emplace_back(context.via[i], "which calls it here, through " +
                                                       std::to_string(context.via_elided) +
                                                       " calls not shown");
      continue;
    }
    finding.related.emplace_back(context.via[i], i == 0 && !context.external ? kFirst : kNext);
  }
  finding.helper.clear();
  if (context.external) {
    for (const Location& at : context.external->via)
      finding.helper += at.path + ":" + std::to_string(at.span.begin) + ";";
    finding.helper += context.external->call_site.path + ":" +
                      std::to_string(context.external->call_site.span.begin) + ";";
  }
  for (const Span& at : context.via) finding.helper += std::to_string(at.begin) + ";";
  if (context.via_elided > 0) finding.helper += "+" + std::to_string(context.via_elided);
}

}  // namespace gpulint

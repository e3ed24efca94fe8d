#include "analyzer/core/rule.h"

namespace gpulint {

void add_call_sites(Finding& finding, const StepContext& context) {
  for (size_t i = 0; i < context.via.size(); ++i) {
    finding.related.emplace_back(context.via[i],
                                 i == 0 ? "called from the step loop here" : "which calls it here");
  }
}

}  // namespace gpulint

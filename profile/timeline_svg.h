#pragma once

// `gpulint profile --plot FILE`: a few profiled steps as a timeline (the GPU busy, its idle
// time coloured by cause, the line under each gap named on hover) and the mean step as a bar.

#include <functional>
#include <string>

#include "profile/attribution.h"

namespace gpulint::profile {

struct PlotInput {
  std::string command;
  int rank = 0;
  const Attribution* attribution = nullptr;
  const Timeline* timeline = nullptr;
  std::function<std::string(const SourceLine&)> line_name;  // how the report names a line
  std::function<std::string(SyncCause)> cause_phrase;       // "a tensor's value read on the host"
};

std::string timeline_svg(const PlotInput& input);

}  // namespace gpulint::profile

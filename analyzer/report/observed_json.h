#pragma once

// `gpulint profile`'s evidence for a finding, as the JSON and SARIF reports both write it.

#include <nlohmann/json.hpp>

#include "analyzer/core/cost.h"

namespace gpulint {

inline nlohmann::ordered_json observed_json(const Observed& observed) {
  nlohmann::ordered_json out = {{"seen", observed.seen}};
  if (observed.seen) {
    if (observed.samples > 0) {
      out["samples"] = observed.samples;
    } else {
      out["per_step"] = observed.per_step;
      out["wait_ms_per_step"] = observed.wait_ms_per_step;
    }
    out["gpu_idle_ms_per_step"] = observed.gpu_idle_ms_per_step;
    out["share_of_step"] = observed.share_of_step;
    if (observed.samples == 0) out["saving_ms_per_step"] = observed.saving_ms_per_step;
  }
  out["summary"] = observed.summary;
  return out;
}

}  // namespace gpulint

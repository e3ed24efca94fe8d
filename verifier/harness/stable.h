#pragma once

// The repeat loop every figure goes through: warm up, then take samples in batches until the
// median stops moving (or the budget is spent, in which case the figure says it is unstable).

#include <functional>

#include "verifier/harness/stats.h"

namespace gpulint::verifier {

struct StableOptions {
  int warmup = 2;         // samples run and thrown away (clocks ramp, caches and pools fill)
  int min_samples = 5;    // before the first stability check
  int batch = 5;          // samples between two checks
  int max_samples = 60;   // stop here even if the median still moves
  double rel_tol = 0.02;  // stable: the median moved by at most this share since the last check
  double budget_s = 0.4;  // stop after this much time spent sampling (warm-up excluded)
};

struct StableResult {
  Summary summary;
  bool stable = false;
};

// `sample` runs the experiment once and returns its figure; `now_s` is the clock that the
// budget is kept with (a monotonic clock in seconds; tests pass their own).
StableResult measure_until_stable(const std::function<double()>& sample,
                                  const StableOptions& options,
                                  const std::function<double()>& now_s);
StableResult measure_until_stable(const std::function<double()>& sample,
                                  const StableOptions& options = {});

// A monotonic clock in seconds.
double monotonic_seconds();

}  // namespace gpulint::verifier

#include "verifier/harness/stable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace gpulint::verifier {

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StableResult measure_until_stable(const std::function<double()>& sample,
                                  const StableOptions& options,
                                  const std::function<double()>& now_s) {
  for (int i = 0; i < options.warmup; ++i) sample();
  const double start = now_s();
  const int max_samples = std::max({options.max_samples, options.min_samples, 1});
  std::vector<double> samples;
  auto take = [&](int n) {
    for (int i = 0; i < n && static_cast<int>(samples.size()) < max_samples; ++i) {
      samples.push_back(sample());
    }
  };
  take(std::max(options.min_samples, 1));
  double previous = summarize(samples).median;
  bool stable = false;
  while (static_cast<int>(samples.size()) < max_samples && now_s() - start < options.budget_s) {
    take(std::max(options.batch, 1));
    const double current = summarize(samples).median;
    const double moved = std::fabs(current - previous);
    previous = current;
    if (moved <= options.rel_tol * std::fabs(current)) {
      stable = true;
      break;
    }
  }
  return {summarize(samples), stable};
}

StableResult measure_until_stable(const std::function<double()>& sample,
                                  const StableOptions& options) {
  return measure_until_stable(sample, options, monotonic_seconds);
}

}  // namespace gpulint::verifier

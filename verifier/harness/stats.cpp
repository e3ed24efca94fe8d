#include "verifier/harness/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpulint::verifier {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double t = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * t;
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.median = quantile_sorted(samples, 0.5);
  s.p25 = quantile_sorted(samples, 0.25);
  s.p75 = quantile_sorted(samples, 0.75);
  s.min = samples.front();
  s.max = samples.back();
  s.samples = samples.size();
  return s;
}

}  // namespace gpulint::verifier

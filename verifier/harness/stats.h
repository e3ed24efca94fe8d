#pragma once

// Order statistics of repeated timings: the median is the figure, the quartiles its spread.

#include <cstddef>
#include <vector>

namespace gpulint::verifier {

struct Summary {
  double median = 0;
  double p25 = 0;  // first quartile
  double p75 = 0;  // third quartile
  double min = 0;
  double max = 0;
  size_t samples = 0;
};

// Linear interpolation between closest ranks (numpy's default), q in [0, 1], on sorted values.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Throws std::invalid_argument for an empty sample.
Summary summarize(std::vector<double> samples);

}  // namespace gpulint::verifier

#include "watch/sparkline.h"

#include <algorithm>
#include <cmath>

namespace gpulint::system {
namespace {

constexpr const char* kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
constexpr int kLevelCount = 8;

}  // namespace

std::string sparkline(const std::vector<double>& percent, size_t width) {
  std::string line;
  if (percent.empty() || width == 0) return line;
  const size_t columns = std::min(width, percent.size());
  for (size_t c = 0; c < columns; ++c) {
    // Bucket c holds samples [begin, end): every sample lands in exactly one bucket.
    const size_t begin = c * percent.size() / columns;
    const size_t end = (c + 1) * percent.size() / columns;
    double sum = 0;
    size_t count = 0;
    for (size_t i = begin; i < end; ++i) {
      if (!std::isnan(percent[i])) sum += percent[i], ++count;
    }
    if (count == 0) {
      line += ' ';
      continue;
    }
    const double mean = std::clamp(sum / static_cast<double>(count), 0.0, 100.0);
    const int level = std::min(kLevelCount - 1, static_cast<int>(mean / 100.0 * kLevelCount));
    line += kLevels[level];
  }
  return line;
}

}  // namespace gpulint::system

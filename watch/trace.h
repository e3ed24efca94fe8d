#pragma once

// A utilisation trace: what `watch` sampled while the command ran, as it is stored in the
// JSON traces under fixtures/traces/ and read back by the classifier and the chart.

#include <optional>
#include <string>
#include <vector>

namespace gpulint::system {

// One GPU's series, one value per sample time; NaN where the driver gave no reading.
struct GpuSeries {
  unsigned index = 0;
  std::string name;
  double memory_total_mib = 0;
  std::vector<double> utilization_percent;
  std::vector<double> memory_used_mib;
  std::vector<double> sm_clock_mhz;
};

struct Trace {
  int interval_ms = 0;
  std::vector<std::string> command;
  std::optional<int> exit_code;
  std::vector<double> t_ms;  // since sampling started, just before the command
  std::vector<GpuSeries> gpus;

  double duration_s() const { return t_ms.empty() ? 0.0 : t_ms.back() / 1000.0; }
};

}  // namespace gpulint::system

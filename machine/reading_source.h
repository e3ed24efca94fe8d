#pragma once

// Where the watch sampler reads the GPUs: NVML on a real machine, a script in tests.

#include <optional>

namespace gpulint::system {

// One reading of one GPU; a field the driver cannot report is absent.
struct GpuReading {
  std::optional<double> utilization_percent;  // share of the last period a kernel ran
  std::optional<double> memory_used_mib;
  std::optional<double> sm_clock_mhz;
};

class ReadingSource {
 public:
  virtual ~ReadingSource() = default;
  virtual GpuReading read(unsigned index) const = 0;
};

}  // namespace gpulint::system

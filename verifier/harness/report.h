#pragma once

// What `gpulint-verifier` writes and `gpulint verify` reads: one JSON document per run
// (schema "gpulint-verifier/1"; README.md describes each field).

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verifier/harness/host_load.h"
#include "verifier/harness/host_model.h"
#include "verifier/harness/stats.h"

namespace gpulint::verifier {

inline constexpr std::string_view kSchema = "gpulint-verifier/1";

class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Measurement {
  std::string id;                 // "balanced.readback": what costs look measurements up by
  std::string label;              // for people
  std::string unit;               // "us/step", "ms", "GB/s", "TFLOP/s"
  bool higher_is_better = false;  // rates; times are lower-is-better
  Summary stats;
  bool stable = false;  // the median settled within the budget
};

struct Clocks {
  int sm_mhz = -1;  // -1: not readable (no NVML)
  int mem_mhz = -1;
};

struct ExperimentResult {
  std::string name;
  bool ok = true;
  std::string error;  // what failed, when !ok
  double wall_s = 0;
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<Measurement> measurements;
  std::vector<std::string> notes;  // derived figures and caveats, one sentence each
  Clocks clocks_after;
  HostLoad host_load;  // other processes' CPU use while it ran

  const Measurement* find(std::string_view id) const;
};

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double memory_gib = 0;
  std::string driver_version;   // the CUDA version the driver supports, "13.0"
  std::string runtime_version;  // the CUDA runtime linked in, "13.0"
  std::string driver_release;   // the driver's own version through NVML, "580.159.04"
  int sm_clock_max_mhz = -1, mem_clock_max_mhz = -1;
  Clocks clocks_start;
  int cpu_threads = 0;
  std::string cpu_gemm;  // which CPU BLAS the placement experiment used
  HostModel host;        // PyTorch's host time per call, when measured
};

// Why no experiment could run: no driver, no GPU, a GPU too old. `gpulint verify` prints the
// message and exits 3.
struct Unavailable {
  std::string reason;  // "no-driver", "no-gpu", "old-gpu"
  std::string message;
};

struct Report {
  std::string schema = std::string(kSchema);
  std::optional<Unavailable> unavailable;
  DeviceInfo device;
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<ExperimentResult> experiments;
  double wall_s = 0;

  const ExperimentResult* find(std::string_view experiment) const;
};

std::string to_json(const Report& report);
// Throws ReportError when the text is not JSON or not this schema.
Report report_from_json(std::string_view text);

// "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB), driver 580.159.04 (CUDA 13.0), runtime 13.0"
std::string describe_device(const DeviceInfo& device);

}  // namespace gpulint::verifier

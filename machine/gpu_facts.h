#pragma once

// What the driver says about the machine, as plain data: the doctor's checks and the watch
// report read these, so tests can hand them a machine that does not exist.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpulint::system {

struct GpuFacts {
  unsigned index = 0;
  std::string name;
  int capability_major = 0;
  int capability_minor = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_used_bytes = 0;
  std::optional<bool> persistence_mode;  // absent where the driver cannot tell (not Linux)
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> sm_clock_max_mhz;
};

// NVML's view: the library, the driver and every GPU, whatever CUDA_VISIBLE_DEVICES says.
struct DriverFacts {
  bool loaded = false;
  std::string error;  // why NVML could not be used, when !loaded
  std::string driver_version;
  int cuda_driver_version = 0;  // 13000 for CUDA 13.0, as cuDriverGetVersion encodes it
  std::vector<GpuFacts> gpus;
};

// The CUDA driver API's view: the version it supports and the devices this process would see.
struct CudaDriverFacts {
  bool loaded = false;
  std::string error;                   // why libcuda could not be used, or what cuInit said
  int version = 0;                     // cuDriverGetVersion
  std::optional<int> visible_devices;  // cuDeviceGetCount after cuInit; absent if cuInit failed
  std::string init_error;              // cuInit's error name when it failed
};

// "13.0" from 13000.
std::string cuda_version_string(int encoded);

}  // namespace gpulint::system

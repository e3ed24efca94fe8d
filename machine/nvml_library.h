#pragma once

// NVML opened at run time (dlopen of libnvidia-ml.so.1), so gpulint starts and explains
// itself on machines with no NVIDIA driver.

#include <memory>
#include <optional>
#include <string>

#include "machine/gpu_facts.h"
#include "machine/nvml_api.h"
#include "machine/reading_source.h"

namespace gpulint::system {

class NvmlLibrary : public ReadingSource {
 public:
  // Opens and initialises NVML; on failure returns null and says why in *error.
  static std::unique_ptr<NvmlLibrary> open(std::string* error);
  ~NvmlLibrary() override;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // Driver version, CUDA version and every GPU's static facts.
  DriverFacts facts() const;
  unsigned device_count() const;
  GpuReading read(unsigned index) const override;

 private:
  NvmlLibrary() = default;
  std::string error_text(nvml::Return code) const;
  nvml::Device device(unsigned index) const;

  void* handle_ = nullptr;
  bool initialised_ = false;  // nvmlInit succeeded, so nvmlShutdown is owed
  nvml::ShutdownFn shutdown_ = nullptr;
  nvml::ErrorStringFn error_string_ = nullptr;
  nvml::SystemGetDriverVersionFn get_driver_version_ = nullptr;
  nvml::SystemGetCudaDriverVersionFn get_cuda_driver_version_ = nullptr;
  nvml::DeviceGetCountFn get_count_ = nullptr;
  nvml::DeviceGetHandleByIndexFn get_handle_ = nullptr;
  nvml::DeviceGetNameFn get_name_ = nullptr;
  nvml::DeviceGetComputeCapabilityFn get_capability_ = nullptr;
  nvml::DeviceGetMemoryInfoFn get_memory_ = nullptr;
  nvml::DeviceGetPersistenceModeFn get_persistence_ = nullptr;
  nvml::DeviceGetClockInfoFn get_clock_ = nullptr;
  nvml::DeviceGetMaxClockInfoFn get_max_clock_ = nullptr;
  nvml::DeviceGetUtilizationRatesFn get_utilization_ = nullptr;
};

// NVML's facts, or the reason there are none (loaded == false).
DriverFacts read_driver_facts();

}  // namespace gpulint::system

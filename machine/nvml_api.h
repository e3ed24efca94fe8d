#pragma once

// The few NVML entry points gpulint calls, declared here from NVIDIA's NVML API reference
// (docs.nvidia.com/deploy/nvml-api): the CUDA toolkit on the build machines ships no nvml.h,
// and the library is opened at run time, so only the types and signatures are needed.

namespace gpulint::nvml {

using Return = int;  // nvmlReturn_t
constexpr Return kSuccess = 0;

using Device = struct DeviceOpaque*;  // nvmlDevice_t: an opaque handle

// nvmlClockType_t
constexpr int kClockSm = 1;

// nvmlEnableState_t
constexpr int kFeatureEnabled = 1;

// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE and NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kDriverVersionBufferSize = 80;
constexpr unsigned kDeviceNameBufferSize = 96;

struct Utilization {  // nvmlUtilization_t: percent of the last sample period
  unsigned gpu;       // a kernel was executing
  unsigned memory;    // device memory was being read or written
};

struct Memory {  // nvmlMemory_t (version 1): bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// The symbol names are the versioned ones the current header maps the plain names to
// (nvmlInit -> nvmlInit_v2 and so on); the plain ones are kept only for old binaries.
using InitFn = Return (*)();                                          // nvmlInit_v2
using ShutdownFn = Return (*)();                                      // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                        // nvmlErrorString
using SystemGetDriverVersionFn = Return (*)(char*, unsigned);         // nvmlSystemGetDriverVersion
using SystemGetCudaDriverVersionFn = Return (*)(int*);                // ..._v2
using DeviceGetCountFn = Return (*)(unsigned*);                       // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned, Device*);       // ..._v2
using DeviceGetNameFn = Return (*)(Device, char*, unsigned);          // nvmlDeviceGetName
using DeviceGetComputeCapabilityFn = Return (*)(Device, int*, int*);  // ...CudaComputeCapability
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);            // nvmlDeviceGetMemoryInfo
using DeviceGetPersistenceModeFn = Return (*)(Device, int*);         // nvmlDeviceGetPersistenceMode
using DeviceGetClockInfoFn = Return (*)(Device, int, unsigned*);     // nvmlDeviceGetClockInfo
using DeviceGetMaxClockInfoFn = Return (*)(Device, int, unsigned*);  // nvmlDeviceGetMaxClockInfo
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);

}  // namespace gpulint::nvml

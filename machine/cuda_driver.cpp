#include "machine/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace gpulint::system {
namespace {

// From NVIDIA's CUDA driver API reference (cuda.h is not needed for four calls).
using CuResult = int;  // CUresult
constexpr CuResult kCudaSuccess = 0;
using DriverGetVersionFn = CuResult (*)(int*);
using InitFn = CuResult (*)(unsigned);
using DeviceGetCountFn = CuResult (*)(int*);
using GetErrorNameFn = CuResult (*)(CuResult, const char**);

constexpr const char* kLibraryName = "libcuda.so.1";

}  // namespace

CudaDriverFacts read_cuda_driver_facts() {
  CudaDriverFacts facts;
  void* handle = ::dlopen(kLibraryName, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    facts.error =
        fmt::format("{} could not be loaded ({})", kLibraryName, why ? why : "unknown reason");
    return facts;
  }
  auto get_version = reinterpret_cast<DriverGetVersionFn>(::dlsym(handle, "cuDriverGetVersion"));
  auto init = reinterpret_cast<InitFn>(::dlsym(handle, "cuInit"));
  auto get_count = reinterpret_cast<DeviceGetCountFn>(::dlsym(handle, "cuDeviceGetCount"));
  auto get_error_name = reinterpret_cast<GetErrorNameFn>(::dlsym(handle, "cuGetErrorName"));
  if (!get_version || !init || !get_count || !get_error_name) {
    facts.error = fmt::format("{} lacks the driver API entry points", kLibraryName);
  } else if (get_version(&facts.version) != kCudaSuccess) {
    facts.error = "cuDriverGetVersion failed";
  } else {
    facts.loaded = true;
    if (const CuResult code = init(0); code != kCudaSuccess) {
      const char* name = nullptr;
      facts.init_error = get_error_name(code, &name) == kCudaSuccess && name
                             ? name
                             : fmt::format("CUresult {}", code);
    } else if (int count = 0; get_count(&count) == kCudaSuccess) {
      facts.visible_devices = count;
    }
  }
  // The library stays loaded: cuInit's state lives in it, and the doctor exits soon after.
  return facts;
}

}  // namespace gpulint::system

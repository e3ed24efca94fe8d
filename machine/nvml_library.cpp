#include "machine/nvml_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace gpulint::system {
namespace {

constexpr const char* kLibraryName = "libnvidia-ml.so.1";
constexpr double kBytesPerMib = 1024.0 * 1024.0;

template <typename Fn>
bool bind(void* handle, const char* symbol, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(::dlsym(handle, symbol));
  if (*out == nullptr && missing->empty()) *missing = symbol;
  return *out != nullptr;
}

}  // namespace

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(std::string* error) {
  void* handle = ::dlopen(kLibraryName, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    *error = fmt::format("{} could not be loaded ({})", kLibraryName, why ? why : "unknown reason");
    return nullptr;
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  nvml::InitFn init = nullptr;
  std::string missing;
  bind(handle, "nvmlInit_v2", &init, &missing);
  bind(handle, "nvmlShutdown", &lib->shutdown_, &missing);
  bind(handle, "nvmlErrorString", &lib->error_string_, &missing);
  bind(handle, "nvmlSystemGetDriverVersion", &lib->get_driver_version_, &missing);
  bind(handle, "nvmlSystemGetCudaDriverVersion_v2", &lib->get_cuda_driver_version_, &missing);
  bind(handle, "nvmlDeviceGetCount_v2", &lib->get_count_, &missing);
  bind(handle, "nvmlDeviceGetHandleByIndex_v2", &lib->get_handle_, &missing);
  bind(handle, "nvmlDeviceGetName", &lib->get_name_, &missing);
  bind(handle, "nvmlDeviceGetCudaComputeCapability", &lib->get_capability_, &missing);
  bind(handle, "nvmlDeviceGetMemoryInfo", &lib->get_memory_, &missing);
  bind(handle, "nvmlDeviceGetPersistenceMode", &lib->get_persistence_, &missing);
  bind(handle, "nvmlDeviceGetClockInfo", &lib->get_clock_, &missing);
  bind(handle, "nvmlDeviceGetMaxClockInfo", &lib->get_max_clock_, &missing);
  bind(handle, "nvmlDeviceGetUtilizationRates", &lib->get_utilization_, &missing);
  if (!missing.empty()) {
    *error = fmt::format("{} has no {}: the driver is older than gpulint supports", kLibraryName,
                         missing);
    return nullptr;  // the destructor closes the library; nothing was initialised
  }
  if (const nvml::Return code = init(); code != nvml::kSuccess) {
    *error = fmt::format("nvmlInit failed: {} (is the NVIDIA kernel module loaded?)",
                         lib->error_text(code));
    return nullptr;
  }
  lib->initialised_ = true;
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialised_) shutdown_();
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::string NvmlLibrary::error_text(nvml::Return code) const {
  const char* text = error_string_ ? error_string_(code) : nullptr;
  return text ? text : fmt::format("NVML error {}", code);
}

unsigned NvmlLibrary::device_count() const {
  unsigned count = 0;
  return get_count_(&count) == nvml::kSuccess ? count : 0;
}

nvml::Device NvmlLibrary::device(unsigned index) const {
  nvml::Device device = nullptr;
  return get_handle_(index, &device) == nvml::kSuccess ? device : nullptr;
}

DriverFacts NvmlLibrary::facts() const {
  DriverFacts facts;
  facts.loaded = true;
  char version[nvml::kDriverVersionBufferSize] = {};
  if (get_driver_version_(version, sizeof version) == nvml::kSuccess) {
    facts.driver_version = version;
  }
  get_cuda_driver_version_(&facts.cuda_driver_version);
  const unsigned count = device_count();
  for (unsigned i = 0; i < count; ++i) {
    const nvml::Device dev = device(i);
    if (dev == nullptr) continue;
    GpuFacts gpu;
    gpu.index = i;
    char name[nvml::kDeviceNameBufferSize] = {};
    if (get_name_(dev, name, sizeof name) == nvml::kSuccess) gpu.name = name;
    get_capability_(dev, &gpu.capability_major, &gpu.capability_minor);
    nvml::Memory memory{};
    if (get_memory_(dev, &memory) == nvml::kSuccess) {
      gpu.memory_total_bytes = memory.total;
      gpu.memory_used_bytes = memory.used;
    }
    int mode = 0;
    if (get_persistence_(dev, &mode) == nvml::kSuccess) {
      gpu.persistence_mode = mode == nvml::kFeatureEnabled;
    }
    unsigned clock = 0;
    if (get_clock_(dev, nvml::kClockSm, &clock) == nvml::kSuccess) gpu.sm_clock_mhz = clock;
    if (get_max_clock_(dev, nvml::kClockSm, &clock) == nvml::kSuccess) {
      gpu.sm_clock_max_mhz = clock;
    }
    facts.gpus.push_back(std::move(gpu));
  }
  return facts;
}

GpuReading NvmlLibrary::read(unsigned index) const {
  GpuReading reading;
  const nvml::Device dev = device(index);
  if (dev == nullptr) return reading;
  nvml::Utilization util{};
  if (get_utilization_(dev, &util) == nvml::kSuccess) {
    reading.utilization_percent = util.gpu;
  }
  nvml::Memory memory{};
  if (get_memory_(dev, &memory) == nvml::kSuccess) {
    reading.memory_used_mib = static_cast<double>(memory.used) / kBytesPerMib;
  }
  unsigned clock = 0;
  if (get_clock_(dev, nvml::kClockSm, &clock) == nvml::kSuccess) reading.sm_clock_mhz = clock;
  return reading;
}

DriverFacts read_driver_facts() {
  DriverFacts facts;
  const std::unique_ptr<NvmlLibrary> nvml = NvmlLibrary::open(&facts.error);
  return nvml ? nvml->facts() : facts;
}

}  // namespace gpulint::system

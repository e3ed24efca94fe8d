#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "verifier/experiments/cuda_util.h"

namespace gpulint::verifier {

void throw_cuda(cudaError_t status, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that the next experiment starts clean.
  cudaGetLastError();
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: %s (%s at %s:%d)", cudaGetErrorName(status),
                cudaGetErrorString(status), call, file, line);
  throw CudaError(buf);
}

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

__global__ void spin_kernel(long long cycles, int* sink) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (sink != nullptr) *sink = static_cast<int>(clock64() - start);
}

// NVML, opened at run time: the driver ships it, and linking it would tie the verifier to a
// driver library at start-up.
struct Nvml {
  using Init = int (*)();
  using ByBus = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using Version = int (*)(char*, unsigned);
  void* device = nullptr;
  Clock clock = nullptr;
  Clock max_clock = nullptr;
  Version driver_version = nullptr;
  bool ok = false;

  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    auto by_bus = reinterpret_cast<ByBus>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    max_clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
    driver_version = reinterpret_cast<Version>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    if (!init || !by_bus || !clock || !max_clock || init() != 0) return;
    char bus[32] = {};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess || by_bus(bus, &device) != 0) {
      return;
    }
    ok = true;
  }
};

const Nvml& nvml() {
  static const Nvml instance;
  return instance;
}

constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;

std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

void launch_spin(long long cycles, int* sink, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(cycles, sink);
  GPULINT_LAUNCHED();
}

double spin_cycles_per_us(cudaStream_t stream) {
  constexpr long long kCycles = 2'000'000;
  EventTimer timer;
  double best_ms = 1e30;
  for (int i = 0; i < 5; ++i) {
    timer.start(stream);
    launch_spin(kCycles, nullptr, stream);
    timer.stop(stream);
    best_ms = std::min(best_ms, timer.elapsed_ms());
  }
  return static_cast<double>(kCycles) / (best_ms * 1000.0);
}

Clocks read_clocks() {
  Clocks c;
  const Nvml& n = nvml();
  unsigned sm = 0, mem = 0;
  if (n.ok && n.clock(n.device, kNvmlClockSm, &sm) == 0 &&
      n.clock(n.device, kNvmlClockMem, &mem) == 0) {
    c.sm_mhz = static_cast<int>(sm);
    c.mem_mhz = static_cast<int>(mem);
  }
  return c;
}

DeviceInfo read_device_info() {
  DeviceInfo d;
  int dev = 0;
  GPULINT_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  GPULINT_CUDA(cudaGetDeviceProperties(&prop, dev));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  int v = 0;
  GPULINT_CUDA(cudaDriverGetVersion(&v));
  d.driver_version = cuda_version_text(v);
  GPULINT_CUDA(cudaRuntimeGetVersion(&v));
  d.runtime_version = cuda_version_text(v);
  int khz = 0;
  GPULINT_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  d.sm_clock_max_mhz = khz / 1000;
  GPULINT_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  d.mem_clock_max_mhz = khz / 1000;
  const Nvml& n = nvml();
  unsigned sm = 0, mem = 0;
  if (n.ok && n.max_clock(n.device, kNvmlClockSm, &sm) == 0 &&
      n.max_clock(n.device, kNvmlClockMem, &mem) == 0) {
    d.sm_clock_max_mhz = static_cast<int>(sm);
    d.mem_clock_max_mhz = static_cast<int>(mem);
  }
  char release[96] = {};
  if (n.ok && n.driver_version != nullptr && n.driver_version(release, sizeof release) == 0) {
    d.driver_release = release;
  }
  d.clocks_start = read_clocks();
  d.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  return d;
}

}  // namespace gpulint::verifier

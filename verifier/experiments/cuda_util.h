#pragma once

// What every experiment needs from CUDA: errors as exceptions (so one failure ends one
// experiment, not the suite), owning handles that free on the way out, and timers.

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "verifier/harness/report.h"

namespace gpulint::verifier {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda(cudaError_t status, const char* call, const char* file, int line);

#define GPULINT_CUDA(call)                                                         \
  do {                                                                             \
    const cudaError_t gpulint_status_ = (call);                                    \
    if (gpulint_status_ != cudaSuccess) {                                          \
      ::gpulint::verifier::throw_cuda(gpulint_status_, #call, __FILE__, __LINE__); \
    }                                                                              \
  } while (0)

// Checks the launch just made (a bad configuration fails here, not at the next sync).
#define GPULINT_LAUNCHED() GPULINT_CUDA(cudaGetLastError())

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    GPULINT_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// Page-locked host memory (what `pin_memory=True` gives a DataLoader batch).
template <typename T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t count) : count_(count) {
    GPULINT_CUDA(
        cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), cudaHostAllocDefault));
  }
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

class Stream {
 public:
  Stream() { GPULINT_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { GPULINT_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// A pair of events around work on one stream: GPU time, in milliseconds.
class EventTimer {
 public:
  EventTimer() {
    GPULINT_CUDA(cudaEventCreate(&start_));
    GPULINT_CUDA(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t s) { GPULINT_CUDA(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { GPULINT_CUDA(cudaEventRecord(stop_, s)); }
  double elapsed_ms() {
    GPULINT_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    GPULINT_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Host wall time in microseconds / milliseconds (steady clock).
double now_us();

// A kernel that spins one thread for `cycles` SM clock cycles (torch.cuda._sleep does the
// same), so a step's GPU time can be set without depending on memory or the chip's width.
void launch_spin(long long cycles, int* sink, cudaStream_t stream);
// SM cycles per microsecond at the clock the GPU runs now, timed with events after a warm-up.
double spin_cycles_per_us(cudaStream_t stream);

// The clocks now, through NVML when the driver has it (-1 otherwise).
Clocks read_clocks();
// Fills everything about the GPU and the host; throws CudaError.
DeviceInfo read_device_info();

}  // namespace gpulint::verifier

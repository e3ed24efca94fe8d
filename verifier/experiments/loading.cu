// loading (GL201, GL206):
// - loader: each batch costs a calibrated amount of CPU preprocessing (loader_cpu_ms on one
//   core) and then a GPU step (loader_gpu_ms); the batch is copied from pageable memory, as
//   a DataLoader without pin_memory hands it over, with `.to(device)`'s stream sync. Inline
//   (num_workers=0) the host preprocesses, copies, launches, and preprocesses the next batch
//   while the GPU works: the GPU idles for the rest of the preprocessing (the saw-tooth). With
//   N producer threads the batches are ready when the step wants them.
// - batch: a forward pass of 8 Linear(1024, 1024) + ReLU layers (cuBLAS SGEMM and a bias +
//   ReLU kernel), samples per second against the batch size: where launches dominate,
//   throughput grows with the batch for free. Each layer costs the host what a Linear + ReLU
//   module pair costs a PyTorch program (host_time.h).

#include <cublas_v2.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "verifier/experiments/cublas_util.h"
#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/experiments/host_time.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

constexpr size_t kBatchFloats = 1 << 18;  // a 1 MiB decoded batch

// Arithmetic over the batch, `passes` times: CPU-bound (it stays in L2), so threads scale.
void preprocess(float* batch, size_t n, int passes) {
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < n; ++i) batch[i] = batch[i] * 0.999f + 0.001f * static_cast<float>(p);
  }
  asm volatile("" : : "r"(batch) : "memory");
}

int calibrate_passes(double target_ms) {
  std::vector<float> batch(kBatchFloats, 1.0f);
  double best_us = 1e30;
  for (int i = 0; i < 5; ++i) {
    const double t0 = now_us();
    preprocess(batch.data(), batch.size(), 4);
    best_us = std::min(best_us, (now_us() - t0) / 4);
  }
  return std::max(1, static_cast<int>(target_ms * 1000.0 / best_us + 0.5));
}

// The producer threads: each takes a free buffer, preprocesses it and queues it as ready.
class Producers {
 public:
  Producers(int threads, int passes) : passes_(passes) {
    for (int i = 0; i < threads + 2; ++i) {
      buffers_.emplace_back(kBatchFloats, 1.0f);
      free_.push_back(&buffers_.back());
    }
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  ~Producers() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  std::vector<float>* take() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !ready_.empty(); });
    std::vector<float>* b = ready_.front();
    ready_.pop_front();
    return b;
  }
  void give_back(std::vector<float>* b) {
    {
      std::lock_guard lock(mu_);
      free_.push_back(b);
    }
    cv_.notify_all();
  }

 private:
  void work() {
    for (;;) {
      std::vector<float>* b = nullptr;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !free_.empty(); });
        if (stop_) return;
        b = free_.front();
        free_.pop_front();
      }
      preprocess(b->data(), b->size(), passes_);
      {
        std::lock_guard lock(mu_);
        ready_.push_back(b);
      }
      cv_.notify_all();
    }
  }

  int passes_;
  std::deque<std::vector<float>> buffers_;
  std::deque<std::vector<float>*> free_, ready_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

void loader(const Params& p, ExperimentResult& out, Stream& stream) {
  const int passes = calibrate_passes(p.loader_cpu_ms);
  const double cycles_per_us = spin_cycles_per_us(stream.get());
  const long long gpu_cycles = static_cast<long long>(p.loader_gpu_ms * 1000.0 * cycles_per_us);
  DeviceBuffer<float> device_batch(kBatchFloats);
  const int steps = 16;
  auto step = [&](const std::vector<float>& batch) {
    // `.to(device)` without non_blocking: PyTorch copies and then syncs the stream.
    GPULINT_CUDA(cudaMemcpyAsync(device_batch.get(), batch.data(), kBatchFloats * sizeof(float),
                                 cudaMemcpyHostToDevice, stream.get()));
    stream.sync();
    launch_spin(gpu_cycles, nullptr, stream.get());
  };
  std::vector<float> inline_batch(kBatchFloats, 1.0f);
  auto run_inline = [&] {
    stream.sync();
    const double t0 = now_us();
    for (int s = 0; s < steps; ++s) {
      preprocess(inline_batch.data(), inline_batch.size(), passes);
      step(inline_batch);
    }
    stream.sync();
    return (now_us() - t0) / steps / 1000.0;
  };
  Producers producers(p.workers, passes);
  auto run_workers = [&] {
    stream.sync();
    const double t0 = now_us();
    for (int s = 0; s < steps; ++s) {
      std::vector<float>* b = producers.take();
      step(*b);
      producers.give_back(b);
    }
    stream.sync();
    return (now_us() - t0) / steps / 1000.0;
  };
  StableOptions options;
  options.budget_s = p.budget_s;
  options.min_samples = 3;
  options.batch = 3;
  const Measurement in = measure("loader.inline", "loader: preprocessing inline (num_workers=0)",
                                 "ms/batch", run_inline, options);
  const Measurement wk =
      measure("loader.workers", "loader: " + std::to_string(p.workers) + " producer threads",
              "ms/batch", run_workers, options);
  out.measurements.push_back(in);
  out.measurements.push_back(wk);
  const double busy = p.loader_gpu_ms;
  out.notes.push_back("GPU busy share: inline " +
                      std::to_string(static_cast<int>(100 * busy / in.stats.median + 0.5)) +
                      "%, with producers " +
                      std::to_string(static_cast<int>(100 * busy / wk.stats.median + 0.5)) + "%");
  out.parameters.emplace_back("loader.cpu_ms", std::to_string(p.loader_cpu_ms));
  out.parameters.emplace_back("loader.gpu_ms", std::to_string(p.loader_gpu_ms));
  out.parameters.emplace_back("loader.workers", std::to_string(p.workers));
  out.parameters.emplace_back("loader.passes", std::to_string(passes));
}

__global__ void bias_relu(float* y, const float* bias, int rows, int cols) {
  const int n = rows * cols;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float v = y[i] + bias[i % cols];
    y[i] = v > 0 ? v : 0;
  }
}

void batch_sweep(const Params& p, const DeviceInfo& d, ExperimentResult& out, Stream& stream) {
  constexpr int kLayers = 8, kWidth = 1024;
  std::set<int64_t> sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  sizes.insert(p.batch_sizes.begin(), p.batch_sizes.end());
  const int64_t largest = *sizes.rbegin();
  DeviceBuffer<float> w(static_cast<size_t>(kLayers) * kWidth * kWidth), bias(kWidth);
  DeviceBuffer<float> a(static_cast<size_t>(largest) * kWidth),
      b(static_cast<size_t>(largest) * kWidth);
  GPULINT_CUDA(cudaMemsetAsync(w.get(), 0, w.bytes(), stream.get()));
  GPULINT_CUDA(cudaMemsetAsync(bias.get(), 0, bias.bytes(), stream.get()));
  GPULINT_CUDA(cudaMemsetAsync(a.get(), 0, a.bytes(), stream.get()));
  CublasHandle handle(stream.get());
  const float one = 1.0f, zero = 0.0f;
  // Row-major y[rows x W] = x[rows x W] . W_l^T, as nn.Linear, in cuBLAS's column-major.
  auto layer = [&](int l, int rows, const float* x, float* y) {
    GPULINT_CUBLAS(cublasSgemm(handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, kWidth, rows, kWidth, &one,
                               w.get() + static_cast<size_t>(l) * kWidth * kWidth, kWidth, x,
                               kWidth, &zero, y, kWidth));
    const int blocks = std::min((rows * kWidth + 255) / 256, d.sm_count * 8);
    bias_relu<<<blocks, 256, 0, stream.get()>>>(y, bias.get(), rows, kWidth);
    GPULINT_LAUNCHED();
  };
  double module_extra = 0;
  if (d.host.measured()) {
    const double raw = host_us_per_call([&] { layer(0, 1, a.get(), b.get()); }, stream.get());
    module_extra = std::max(0.0, d.host.module_us - raw);
    char note[160];
    std::snprintf(note, sizeof note,
                  "batch: PyTorch host time added per Linear + ReLU pair (%s): +%.1f us beyond "
                  "the raw %.1f us",
                  d.host.detail.c_str(), module_extra, raw);
    out.notes.push_back(note);
  } else {
    out.notes.push_back("batch: raw CUDA host times (no PyTorch host model: " + d.host.detail +
                        ")");
  }
  const int steps = std::max(10, p.steps / 2);
  for (const int64_t batch : sizes) {
    const int rows = static_cast<int>(batch);
    auto run = [&] {
      stream.sync();
      const double t0 = now_us();
      for (int s = 0; s < steps; ++s) {
        float* x = a.get();
        float* y = b.get();
        for (int l = 0; l < kLayers; ++l) {
          spin_host(module_extra);
          layer(l, rows, x, y);
          std::swap(x, y);
        }
      }
      stream.sync();
      const double step_s = (now_us() - t0) / steps / 1e6;
      return static_cast<double>(batch) / step_s;
    };
    StableOptions options;
    options.budget_s = p.budget_s / 3;
    Measurement m = measure("batch.b" + std::to_string(batch),
                            "batch " + std::to_string(batch) + ": 8-layer MLP forward", "samples/s",
                            run, options);
    m.higher_is_better = true;
    out.measurements.push_back(std::move(m));
  }
  out.parameters.emplace_back("batch.model", "8 x (Linear(1024, 1024) + ReLU), FP32 forward");
}

}  // namespace

void run_loading(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  Stream stream;
  loader(p, out, stream);
  PinThread pin;  // after the loader's producer threads are gone
  batch_sweep(p, d, out, stream);
}

}  // namespace gpulint::verifier

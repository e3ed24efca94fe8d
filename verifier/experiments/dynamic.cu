// dynamic (GL106, GL107, GL503):
// - shape: a kernel counts the elements that pass a mask; the count is read back and the
//   consumer launched with a grid sized by it (what nonzero / x[mask] do) vs one fixed-size
//   launch that applies the mask in the kernel.
// - alloc: cudaFree + cudaMalloc of the step's buffers every step (what empty_cache() makes
//   the caching allocator do) vs reusing them.
// - weights: a layer's weights allocated on the host, initialised there (uniform, as
//   nn.Linear's init) and uploaded every step vs reused; device memory is reused either way,
//   as PyTorch's caching allocator reuses it.

#include <cuda_runtime.h>

#include <cmath>
#include <random>
#include <vector>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

__global__ void fill_pattern(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] = static_cast<float>((i * 2654435761u) >> 8) / 16777216.0f;
  }
}

__global__ void count_above(const float* x, int n, float threshold, int* count) {
  int local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    local += x[i] > threshold;
  }
  atomicAdd(count, local);
}

__global__ void consume_prefix(const float* x, int n, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = x[i] * 2.0f;
  }
}

__global__ void consume_masked(const float* x, int n, float threshold, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = x[i] > threshold ? x[i] * 2.0f : 0.0f;
  }
}

__global__ void scale(float* w, size_t n, float s) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    w[i] *= s;
  }
}

int grid_for(int n, const DeviceInfo& d) {
  const int blocks = (n + 255) / 256;
  return std::max(1, std::min(blocks, d.sm_count * 8));
}

void shape(const Params& p, const DeviceInfo& d, ExperimentResult& out, Stream& stream) {
  constexpr int kN = 1 << 22;  // 4M floats: a mask over an activation
  constexpr float kThreshold = 0.5f;
  DeviceBuffer<float> x(kN), y(kN);
  DeviceBuffer<int> count(1);
  fill_pattern<<<grid_for(kN, d), 256, 0, stream.get()>>>(x.get(), kN);
  GPULINT_LAUNCHED();
  const int steps = p.steps;
  auto run = [&](bool readback) {
    return [&, readback] {
      stream.sync();
      const double t0 = now_us();
      for (int s = 0; s < steps; ++s) {
        GPULINT_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(int), stream.get()));
        count_above<<<grid_for(kN, d), 256, 0, stream.get()>>>(x.get(), kN, kThreshold,
                                                               count.get());
        GPULINT_LAUNCHED();
        if (readback) {
          int host = 0;
          GPULINT_CUDA(cudaMemcpyAsync(&host, count.get(), sizeof host, cudaMemcpyDeviceToHost,
                                       stream.get()));
          stream.sync();
          consume_prefix<<<grid_for(host, d), 256, 0, stream.get()>>>(x.get(), host, y.get());
        } else {
          consume_masked<<<grid_for(kN, d), 256, 0, stream.get()>>>(x.get(), kN, kThreshold,
                                                                    y.get());
        }
        GPULINT_LAUNCHED();
      }
      stream.sync();
      return (now_us() - t0) / steps;
    };
  };
  StableOptions options;
  options.budget_s = p.budget_s;
  out.measurements.push_back(measure("shape.fixed_launch", "shape: fixed-size masked launch",
                                     "us/step", run(false), options));
  out.measurements.push_back(measure("shape.readback_launch",
                                     "shape: count, read back, launch by count", "us/step",
                                     run(true), options));
  out.parameters.emplace_back("shape.elements", std::to_string(kN));
}

__global__ void touch(char* p, size_t n) {
  for (size_t i = (blockIdx.x * size_t{blockDim.x} + threadIdx.x) * 4096; i < n;
       i += size_t{gridDim.x} * blockDim.x * 4096) {
    p[i] = 1;
  }
}

void alloc(const Params& p, const DeviceInfo& d, ExperimentResult& out, Stream& stream) {
  const size_t bytes = static_cast<size_t>(p.batch_bytes());
  std::vector<void*> buffers(static_cast<size_t>(p.alloc_buffers), nullptr);
  struct Guard {
    std::vector<void*>& b;
    ~Guard() {
      for (void* ptr : b) cudaFree(ptr);
    }
  } guard{buffers};
  for (void*& b : buffers) GPULINT_CUDA(cudaMalloc(&b, bytes));
  const int steps = std::max(5, p.steps / 10);
  auto run = [&](bool realloc) {
    return [&, realloc] {
      stream.sync();
      const double t0 = now_us();
      for (int s = 0; s < steps; ++s) {
        for (void*& b : buffers) {
          if (realloc) {
            GPULINT_CUDA(cudaFree(b));
            b = nullptr;
            GPULINT_CUDA(cudaMalloc(&b, bytes));
          }
          touch<<<d.sm_count * 4, 256, 0, stream.get()>>>(static_cast<char*>(b), bytes);
          GPULINT_LAUNCHED();
        }
      }
      stream.sync();
      return (now_us() - t0) / steps;
    };
  };
  StableOptions options;
  options.budget_s = p.budget_s;
  out.measurements.push_back(
      measure("alloc.reuse", "alloc: buffers reused", "us/step", run(false), options));
  out.measurements.push_back(measure("alloc.free_malloc", "alloc: cudaFree + cudaMalloc each step",
                                     "us/step", run(true), options));
  out.parameters.emplace_back("alloc.buffers", std::to_string(p.alloc_buffers));
  out.parameters.emplace_back("alloc.buffer_bytes", std::to_string(bytes));
}

void weights(const Params& p, const DeviceInfo& d, ExperimentResult& out, Stream& stream) {
  const size_t in = static_cast<size_t>(p.layer[0]), outs = static_cast<size_t>(p.layer[1]);
  const size_t n = in * outs + outs;  // weight and bias
  DeviceBuffer<float> w(n);
  GPULINT_CUDA(cudaMemsetAsync(w.get(), 0, w.bytes(), stream.get()));
  std::mt19937 rng(1234);
  const float bound = 1.0f / std::sqrt(static_cast<float>(in));
  auto run = [&](bool recreate) {
    return [&, recreate] {
      stream.sync();
      const double t0 = now_us();
      if (recreate) {
        // A fresh host tensor each step, filled serially as PyTorch's CPU uniform_ does.
        std::vector<float> host(n);
        for (float& v : host) {
          v = (static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * bound;
        }
        GPULINT_CUDA(cudaMemcpyAsync(w.get(), host.data(), n * sizeof(float),
                                     cudaMemcpyHostToDevice, stream.get()));
      }
      scale<<<grid_for(static_cast<int>(std::min<size_t>(n, 1 << 30)), d) * 4, 256, 0,
              stream.get()>>>(w.get(), n, 1.0f);
      GPULINT_LAUNCHED();
      stream.sync();
      return (now_us() - t0) / 1000.0;
    };
  };
  StableOptions options;
  options.budget_s = p.budget_s;
  options.min_samples = 3;
  options.batch = 2;
  out.measurements.push_back(
      measure("weights.reuse", "weights: layer reused", "ms/step", run(false), options));
  out.measurements.push_back(measure("weights.recreate",
                                     "weights: re-created, initialised, uploaded each step",
                                     "ms/step", run(true), options));
  out.parameters.emplace_back("weights.layer", format_shape(p.layer));
}

}  // namespace

void run_dynamic(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  Stream stream;
  shape(p, d, out, stream);
  alloc(p, d, out, stream);
  weights(p, d, out, stream);
}

}  // namespace gpulint::verifier

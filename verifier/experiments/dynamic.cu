// dynamic (GL106, GL107, GL503), each call costing the host what it costs a PyTorch program
// (host_time.h):
// - shape: the kernels of `x[x > 0.5] * 2`, whose nonzero counts the elements that pass the
//   mask, reads the count back and sizes the next launches by it, vs those of the fixed-size
//   `torch.where(x > 0.5, x * 2, 0)`.
// - alloc: cudaFree + cudaMalloc of the step's buffers every step (what empty_cache() makes
//   the caching allocator do) vs reusing them.
// - weights: a layer's weights allocated on the host, initialised there (uniform, as
//   nn.Linear's init) and uploaded every step vs reused; device memory is reused either way,
//   as PyTorch's caching allocator reuses it.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/experiments/host_time.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

__global__ void fill_pattern(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] = static_cast<float>((i * 2654435761u) >> 8) / 16777216.0f;
  }
}

__global__ void greater(const float* x, int n, float threshold, bool* mask) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    mask[i] = x[i] > threshold;
  }
}

__global__ void count_true(const bool* mask, int n, int* count) {
  int local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    local += mask[i];
  }
  atomicAdd(count, local);
}

// nonzero's second pass: the indices of the true elements (in no particular order here; the
// memory traffic is the same). One atomic per block and pass, as a scan-based selection
// needs no more: an atomic per element on one counter would time the counter, not the pass.
__global__ void select_true(const bool* mask, int n, int* indices, int* next) {
  __shared__ int warp_offsets[32];
  __shared__ int block_base;
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int warps = static_cast<int>(blockDim.x) >> 5;
  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    const int i = base + static_cast<int>(threadIdx.x);
    const bool flag = i < n && mask[i];
    const unsigned ballot = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_offsets[warp] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x == 0) {
      int total = 0;
      for (int w = 0; w < warps; ++w) {
        const int count = warp_offsets[w];
        warp_offsets[w] = total;
        total += count;
      }
      block_base = total > 0 ? atomicAdd(next, total) : 0;
    }
    __syncthreads();
    if (flag) indices[block_base + warp_offsets[warp] + __popc(ballot & ((1u << lane) - 1))] = i;
    __syncthreads();
  }
}

__global__ void gather(const float* x, const int* indices, int n, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = x[indices[i]];
  }
}

__global__ void times_two(const float* x, int n, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = x[i] * 2.0f;
  }
}

__global__ void where(const bool* mask, const float* x, int n, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = mask[i] ? x[i] : 0.0f;
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

// The ops PyTorch runs, each a launch with its host time: `x[x > 0.5] * 2` is a comparison,
// a nonzero (a count, its readback, a selection), an index and a multiply; the fixed-size
// `torch.where(x > 0.5, x * 2, 0)` a comparison, a multiply and a where.
void shape(const Params& p, const DeviceInfo& d, const Extras& extra, ExperimentResult& out,
           Stream& stream) {
  constexpr int kN = 1 << 22;  // 4M floats: a mask over an activation
  constexpr float kThreshold = 0.5f;
  DeviceBuffer<float> x(kN), y(kN), z(kN);
  DeviceBuffer<bool> mask(kN);
  DeviceBuffer<int> indices(kN), counters(2);
  const cudaStream_t s = stream.get();
  fill_pattern<<<grid_for(kN, d), 256, 0, s>>>(x.get(), kN);
  GPULINT_LAUNCHED();
  const int grid = grid_for(kN, d);
  auto fixed = [&] {
    spin_host(extra.launch);
    greater<<<grid, 256, 0, s>>>(x.get(), kN, kThreshold, mask.get());
    spin_host(extra.launch);
    times_two<<<grid, 256, 0, s>>>(x.get(), kN, y.get());
    spin_host(extra.launch);
    where<<<grid, 256, 0, s>>>(mask.get(), y.get(), kN, z.get());
  };
  auto readback = [&] {
    spin_host(extra.launch);
    greater<<<grid, 256, 0, s>>>(x.get(), kN, kThreshold, mask.get());
    spin_host(extra.launch);  // nonzero
    GPULINT_CUDA(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(int), s));
    count_true<<<grid, 256, 0, s>>>(mask.get(), kN, counters.get());
    int count = 0;
    GPULINT_CUDA(cudaMemcpyAsync(&count, counters.get(), sizeof count, cudaMemcpyDeviceToHost, s));
    stream.sync();
    spin_host(extra.item);
    select_true<<<grid, 256, 0, s>>>(mask.get(), kN, indices.get(), counters.get() + 1);
    spin_host(extra.launch);  // index
    gather<<<grid_for(count, d), 256, 0, s>>>(x.get(), indices.get(), count, y.get());
    spin_host(extra.launch);
    times_two<<<grid_for(count, d), 256, 0, s>>>(y.get(), count, z.get());
  };
  const int steps = p.steps;
  auto run = [&](const auto& step) {
    return [&] {
      stream.sync();
      const double t0 = now_us();
      for (int i = 0; i < steps; ++i) {
        step();
        GPULINT_LAUNCHED();
      }
      stream.sync();
      return (now_us() - t0) / steps;
    };
  };
  StableOptions options;
  options.budget_s = p.budget_s;
  out.measurements.push_back(measure("shape.fixed_launch",
                                     "shape: fixed size (compare, multiply, where)", "us/step",
                                     run(fixed), options));
  out.measurements.push_back(measure("shape.readback_launch",
                                     "shape: compare, nonzero (count, read back, select), index, "
                                     "multiply",
                                     "us/step", run(readback), options));
  out.parameters.emplace_back("shape.elements", std::to_string(kN));
}

__global__ void touch(char* p, size_t n) {
  for (size_t i = (blockIdx.x * size_t{blockDim.x} + threadIdx.x) * 4096; i < n;
       i += size_t{gridDim.x} * blockDim.x * 4096) {
    p[i] = 1;
  }
}

// Each buffer is a PyTorch tensor: its allocation from the caching allocator and the fill's
// launch cost the host their PyTorch time in both variants.
void alloc(const Params& p, const DeviceInfo& d, const Extras& extra, ExperimentResult& out,
           Stream& stream) {
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
          spin_host(d.host.alloc_us + extra.launch);
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
  // A re-used layer's step is one kernel of tens of microseconds, near the sync's own jitter:
  // a sample times kReuseSteps of them, as a loop runs them back to back.
  constexpr int kReuseSteps = 20;
  auto run = [&](bool recreate) {
    return [&, recreate] {
      const int steps = recreate ? 1 : kReuseSteps;
      stream.sync();
      const double t0 = now_us();
      for (int i = 0; i < steps; ++i) {
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
      }
      stream.sync();
      return (now_us() - t0) / 1000.0 / steps;
    };
  };
  StableOptions options;
  // Samples of about 0.1 s, whose host-side fill varies: a longer budget (about a dozen
  // samples) lets the median settle.
  options.budget_s = std::max(p.budget_s, 1.2);
  options.min_samples = 5;
  options.batch = 3;
  out.measurements.push_back(
      measure("weights.reuse", "weights: layer reused", "ms/step", run(false), options));
  out.measurements.push_back(measure("weights.recreate",
                                     "weights: re-created, initialised, uploaded each step",
                                     "ms/step", run(true), options));
  out.parameters.emplace_back("weights.layer", format_shape(p.layer));
}

}  // namespace

void run_dynamic(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  PinThread pin;
  Stream stream;
  const Extras extra = measure_extras(d.host, stream.get(), nullptr);
  shape(p, d, extra, out, stream);
  alloc(p, d, extra, out, stream);
  weights(p, d, out, stream);
  std::string note = describe_extras(d.host, extra);
  if (d.host.measured()) {
    char alloc_note[96];
    std::snprintf(alloc_note, sizeof alloc_note, "; a tensor's allocation and free +%.1f us",
                  d.host.alloc_us);
    note += alloc_note;
  }
  out.notes.push_back(note);
}

}  // namespace gpulint::verifier

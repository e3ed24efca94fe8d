// placement (GL301, GL302, GL303):
// - gemm: a layer-sized FP32 GEMM (cpu_gemm_shape) on every CPU core (torch.mm when the host
//   model's probe ran, else the verifier's BLAS) vs cuBLAS SGEMM on the GPU (FP32, as
//   PyTorch's default matmul without TF32), data already where it runs.
// - fill: a batch-shaped randn made on the host and copied to the GPU, vs cuRAND filling it on
//   the device; the same for zeros (a parallel fill on the host vs cudaMemsetAsync). The host's
//   randn is torch.randn's own time from the probe where it ran, else PyTorch's CPU algorithm
//   run here (serial uniforms, vectorised Box-Muller).

#include <cublas_v2.h>
#include <curand.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "verifier/experiments/cpu_gemm.h"
#include "verifier/experiments/cublas_util.h"
#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/experiments/host_fill.h"
#include "verifier/harness/host_model.h"
#include "verifier/harness/measure.h"
#include "verifier/harness/stable.h"

namespace gpulint::verifier {
namespace {

#define GPULINT_CURAND(call)                                                                \
  do {                                                                                      \
    const curandStatus_t gpulint_status_ = (call);                                          \
    if (gpulint_status_ != CURAND_STATUS_SUCCESS) {                                         \
      throw CudaError("cuRAND error " + std::to_string(static_cast<int>(gpulint_status_)) + \
                      " (" #call ")");                                                      \
    }                                                                                       \
  } while (0)

class Generator {
 public:
  explicit Generator(cudaStream_t stream) {
    GPULINT_CURAND(curandCreateGenerator(&g_, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    GPULINT_CURAND(curandSetStream(g_, stream));
    GPULINT_CURAND(curandSetPseudoRandomGeneratorSeed(g_, 1234));
  }
  ~Generator() { curandDestroyGenerator(g_); }
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  curandGenerator_t get() const { return g_; }

 private:
  curandGenerator_t g_ = nullptr;
};

// The CPU figure a PyTorch user pays is torch's own matmul: the probe's samples where it took
// them (replayed through the harness's stopping rule, so "stable" means the same), else the
// verifier's BLAS.
Measurement cpu_gemm(const Params& p, const HostModel& host, const std::vector<float>& a,
                     const std::vector<float>& b, std::vector<float>& c) {
  const auto [m, n, k] = p.cpu_gemm;
  StableOptions options;
  options.warmup = 1;
  options.min_samples = 3;
  options.batch = 2;
  options.budget_s = std::max(1.0, p.budget_s);
  if (!host.cpu_gemm_ms.empty()) {
    options.warmup = 0;
    options.max_samples = static_cast<int>(host.cpu_gemm_ms.size());
    size_t next = 0;
    const StableResult r =
        measure_until_stable([&] { return host.cpu_gemm_ms[next++]; }, options, [] { return 0.0; });
    return {"gemm.cpu", "GEMM on the CPU (torch.mm, " + host.detail + ")", "ms", false, r.summary,
            r.stable};
  }
  return measure(
      "gemm.cpu", "GEMM on the CPU (" + cpu_gemm_name() + ")", "ms",
      [&] {
        const double t0 = now_us();
        cpu_sgemm(m, n, k, a.data(), b.data(), c.data());
        return (now_us() - t0) / 1000.0;
      },
      options);
}

void gemm(const Params& p, const HostModel& host, ExperimentResult& out, Stream& stream) {
  const auto [m, n, k] = p.cpu_gemm;
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)),
      c(static_cast<size_t>(m * n));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  const double gflop = 2.0 * static_cast<double>(m) * n * k / 1e9;
  const Measurement cpu = cpu_gemm(p, host, a, b, c);

  DeviceBuffer<float> da(a.size()), db(b.size()), dc(c.size());
  GPULINT_CUDA(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
  GPULINT_CUDA(cudaMemcpy(db.get(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
  CublasHandle handle(stream.get());
  const float one = 1.0f, zero = 0.0f;
  EventTimer timer;
  StableOptions gpu_options;
  gpu_options.budget_s = p.budget_s;
  const Measurement gpu = measure(
      "gemm.gpu", "GEMM on the GPU (cuBLAS SGEMM)", "ms",
      [&] {
        timer.start(stream.get());
        // Row-major C = A.B is column-major C^T = B^T.A^T.
        GPULINT_CUBLAS(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                                   static_cast<int>(m), static_cast<int>(k), &one, db.get(),
                                   static_cast<int>(n), da.get(), static_cast<int>(k), &zero,
                                   dc.get(), static_cast<int>(n)));
        timer.stop(stream.get());
        return timer.elapsed_ms();
      },
      gpu_options);
  out.measurements.push_back(cpu);
  out.measurements.push_back(gpu);
  // GFLOP over milliseconds is TFLOP/s: scale to GFLOP/s.
  out.measurements.push_back(
      rate_of(cpu, gflop * 1e3, "gemm.cpu_gflops", "CPU GEMM rate", "GFLOP/s"));
  out.measurements.push_back(
      rate_of(gpu, gflop * 1e3, "gemm.gpu_gflops", "GPU GEMM rate", "GFLOP/s"));
  out.parameters.emplace_back("gemm.shape", format_gemm(p.cpu_gemm));
  out.parameters.emplace_back(
      "gemm.cpu", host.cpu_gemm_ms.empty() ? cpu_gemm_name() : "torch.mm (" + host.detail + ")");
}

void fill(const Params& p, const HostModel& host_model, ExperimentResult& out, Stream& stream) {
  const size_t count = static_cast<size_t>(p.batch_bytes() / 4);
  DeviceBuffer<float> device(count);
  Generator generator(stream.get());
  std::mt19937 rng(11);
  StableOptions options;
  options.budget_s = p.budget_s;
  options.min_samples = 3;
  options.batch = 3;
  auto host_then_copy = [&](bool normal) {
    return [&, normal] {
      stream.sync();
      const double t0 = now_us();
      // A fresh CPU tensor (a new allocation, so its pages fault in as PyTorch's do), filled
      // by the algorithm PyTorch's CPU factory runs.
      std::unique_ptr<float[]> host(new float[count]);
      if (normal) {
        fill_normal(host.get(), count, rng);
      } else {
        fill_zeros(host.get(), count);
      }
      GPULINT_CUDA(cudaMemcpyAsync(device.get(), host.get(), count * sizeof(float),
                                   cudaMemcpyHostToDevice, stream.get()));
      stream.sync();
      return (now_us() - t0) / 1000.0;
    };
  };
  // torch.randn's own samples, each followed by a copy timed here from a batch just written by
  // one thread (as randn writes it); replayed through the stopping rule as gemm.cpu's are.
  const std::vector<double>& randn_ms = host_model.cpu_randn_ms;
  size_t next_randn = 0;
  auto torch_randn_then_copy = [&] {
    std::unique_ptr<float[]> host(new float[count]);
    std::memset(host.get(), 0, count * sizeof(float));
    stream.sync();
    const double t0 = now_us();
    GPULINT_CUDA(cudaMemcpyAsync(device.get(), host.get(), count * sizeof(float),
                                 cudaMemcpyHostToDevice, stream.get()));
    stream.sync();
    return (now_us() - t0) / 1000.0 + randn_ms[next_randn++ % randn_ms.size()];
  };
  auto on_device = [&](bool normal) {
    return [&, normal] {
      stream.sync();
      const double t0 = now_us();
      if (normal) {
        GPULINT_CURAND(curandGenerateNormal(generator.get(), device.get(), count, 0.0f, 1.0f));
      } else {
        GPULINT_CUDA(cudaMemsetAsync(device.get(), 0, count * sizeof(float), stream.get()));
      }
      stream.sync();
      return (now_us() - t0) / 1000.0;
    };
  };
  if (randn_ms.empty()) {
    out.measurements.push_back(measure("fill.host_copy", "randn on the host, then copied", "ms",
                                       host_then_copy(true), options));
  } else {
    torch_randn_then_copy();  // the copy's warm-up; the samples start from the first again
    next_randn = 0;
    StableOptions replay = options;
    replay.warmup = 0;
    replay.max_samples = static_cast<int>(randn_ms.size());
    out.measurements.push_back(measure(
        "fill.host_copy", "randn on the host (torch.randn, " + host_model.detail + "), then copied",
        "ms", torch_randn_then_copy, replay));
  }
  out.measurements.push_back(
      measure("fill.device", "randn on the device (cuRAND)", "ms", on_device(true), options));
  out.measurements.push_back(measure("fill.zeros_host_copy", "zeros on the host, then copied", "ms",
                                     host_then_copy(false), options));
  out.measurements.push_back(measure("fill.zeros_device", "zeros on the device (memset)", "ms",
                                     on_device(false), options));
  out.parameters.emplace_back("fill.shape", format_shape(p.batch_shape));
  out.parameters.emplace_back("fill.host", randn_ms.empty()
                                               ? "PyTorch's CPU algorithm, run by the verifier"
                                               : "torch.randn (" + host_model.detail + ")");
}

}  // namespace

void run_placement(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  Stream stream;
  gemm(p, d.host, out, stream);
  fill(p, d.host, out, stream);
}

}  // namespace gpulint::verifier

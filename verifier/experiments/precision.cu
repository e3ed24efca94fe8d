// precision (GL401, GL403, GL404, GL405): one layer-shaped GEMM (gemm_shape, M x N x K, laid
// out as torch.matmul(a[M x K], b[K x N]) hands it to cuBLAS) through cuBLASLt in FP32, TF32,
// BF16 and FP16 (FP32 accumulate, as PyTorch), on random data: TFLOP/s, the share of the
// chip's dense peak and the speed-up over FP32; then BF16 with K not divisible by 8 against
// K rounded up to a multiple of 8.

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <curand.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "verifier/experiments/cublas_util.h"
#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/harness/measure.h"

namespace gpulint::verifier {
namespace {

struct Format {
  const char* id;
  const char* label;
  cudaDataType_t type;
  cublasComputeType_t compute;
  size_t bytes;
};

constexpr Format kFP32 = {"fp32", "FP32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4};
constexpr Format kTF32 = {"tf32", "TF32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4};
constexpr Format kBF16 = {"bf16", "BF16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2};
constexpr Format kFP16 = {"fp16", "FP16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2};

// Dense TFLOP/s of a chip: the datasheet where the chip is known, else FLOP per clock per SM
// for its architecture times the SM count and the maximum SM clock. 0: no such unit.
struct Peak {
  double fp32, tf32, half;  // half: BF16 and FP16
  std::string source;
};

Peak peak_of(const DeviceInfo& d) {
  if (d.name.find("H100") != std::string::npos || d.name.find("H200") != std::string::npos) {
    if (d.name.find("PCIe") == std::string::npos && d.name.find("NVL") == std::string::npos) {
      return {66.9, 494.7, 989.4, "the H100/H200 SXM datasheet"};
    }
  }
  if (d.name.find("A100") != std::string::npos) return {19.5, 156, 312, "the A100 datasheet"};
  const int cc = d.cc_major * 10 + d.cc_minor;
  double fp32 = 0, tf32 = 0, half = 0;  // an architecture this table does not know
  if (cc == 75) fp32 = 128, half = 1024;
  if (cc == 80) fp32 = 128, tf32 = 1024, half = 2048;
  if (cc == 86 || cc == 87 || cc == 89) fp32 = 256, tf32 = 512, half = 1024;
  if (cc == 90) fp32 = 256, tf32 = 2048, half = 4096;
  if (cc == 100) fp32 = 256, tf32 = 4096, half = 8192;
  const double per_clock = d.sm_count * std::max(d.sm_clock_max_mhz, 0) * 1e6 / 1e12;
  return {fp32 * per_clock, tf32 * per_clock, half * per_clock,
          "FLOP/clock/SM for sm_" + std::to_string(cc) + " x " + std::to_string(d.sm_count) +
              " SMs x " + std::to_string(d.sm_clock_max_mhz) + " MHz"};
}

template <typename T>
__global__ void convert(const float* in, T* out, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<T>(in[i]);
  }
}

class Lt {
 public:
  Lt() { GPULINT_CUBLAS(cublasLtCreate(&h_)); }
  ~Lt() { cublasLtDestroy(h_); }
  Lt(const Lt&) = delete;
  Lt& operator=(const Lt&) = delete;
  cublasLtHandle_t get() const { return h_; }

 private:
  cublasLtHandle_t h_ = nullptr;
};

// One configured matmul: descriptors, layouts and the heuristic's first algorithm.
class Matmul {
 public:
  Matmul(const Lt& lt, const Format& f, int64_t m, int64_t n, int64_t k, size_t workspace)
      : lt_(lt), workspace_(workspace) {
    GPULINT_CUBLAS(cublasLtMatmulDescCreate(&op_, f.compute, CUDA_R_32F));
    // Column-major D[m x n] = A[m x k] . B[k x n].
    GPULINT_CUBLAS(cublasLtMatrixLayoutCreate(&a_, f.type, m, k, m));
    GPULINT_CUBLAS(cublasLtMatrixLayoutCreate(&b_, f.type, k, n, k));
    GPULINT_CUBLAS(cublasLtMatrixLayoutCreate(&c_, f.type, m, n, m));
    cublasLtMatmulPreference_t pref = nullptr;
    GPULINT_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_, sizeof workspace_);
    int found = 0;
    const cublasStatus_t heur =
        set == CUBLAS_STATUS_SUCCESS
            ? cublasLtMatmulAlgoGetHeuristic(lt.get(), op_, a_, b_, c_, c_, pref, 1, &algo_, &found)
            : set;
    cublasLtMatmulPreferenceDestroy(pref);
    GPULINT_CUBLAS(heur);
    if (found == 0) throw CudaError(std::string("cuBLASLt has no algorithm for ") + f.label);
  }
  ~Matmul() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatmulDescDestroy(op_);
  }
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  void run(const void* a, const void* b, void* c, void* workspace, cudaStream_t s) const {
    const float one = 1.0f, zero = 0.0f;
    GPULINT_CUBLAS(cublasLtMatmul(lt_.get(), op_, &one, a, a_, b, b_, &zero, c, c_, c, c_,
                                  &algo_.algo, workspace, workspace_, s));
  }

 private:
  const Lt& lt_;
  size_t workspace_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
};

int64_t round_up_8(int64_t v) { return (v + 7) / 8 * 8; }

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

void run_precision(const Params& p, const DeviceInfo& d, ExperimentResult& out) {
  Stream stream;
  Lt lt;
  // cuBLAS's row-major trick: torch.matmul(a, b) with a[M x K], b[K x N] runs as column-major
  // C^T[N x M] = b^T[N x K] . a^T[K x M], so cuBLAS's m is N and its n is M.
  const int64_t cm = p.gemm.n, cn = p.gemm.m;
  std::set<int64_t> ks;  // the K of each unaligned dim and of its multiple of 8
  for (int64_t dim : p.unaligned_dims) {
    ks.insert(dim);
    ks.insert(round_up_8(dim));
  }
  const int64_t kmax = std::max(p.gemm.k, ks.empty() ? int64_t{0} : *ks.rbegin());
  const size_t a_elems = static_cast<size_t>(cm * kmax), b_elems = static_cast<size_t>(kmax * cn),
               c_elems = static_cast<size_t>(cm * cn);
  DeviceBuffer<float> a32(a_elems), b32(b_elems), c32(c_elems);
  DeviceBuffer<__nv_bfloat16> a_bf(a_elems), b_bf(b_elems), c_bf(c_elems);
  DeviceBuffer<__half> a_h(a_elems), b_h(b_elems), c_h(c_elems);
  constexpr size_t kWorkspace = size_t{32} << 20;
  DeviceBuffer<char> workspace(kWorkspace);
  {
    curandGenerator_t g = nullptr;
    if (curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) {
      throw CudaError("cuRAND: cannot create a generator");
    }
    curandSetStream(g, stream.get());
    const bool ok = curandGenerateUniform(g, a32.get(), a_elems) == CURAND_STATUS_SUCCESS &&
                    curandGenerateUniform(g, b32.get(), b_elems) == CURAND_STATUS_SUCCESS;
    curandDestroyGenerator(g);
    if (!ok) throw CudaError("cuRAND: cannot fill the GEMM inputs");
  }
  const int blocks = d.sm_count * 8;
  convert<<<blocks, 256, 0, stream.get()>>>(a32.get(), a_bf.get(), a_elems);
  convert<<<blocks, 256, 0, stream.get()>>>(b32.get(), b_bf.get(), b_elems);
  convert<<<blocks, 256, 0, stream.get()>>>(a32.get(), a_h.get(), a_elems);
  convert<<<blocks, 256, 0, stream.get()>>>(b32.get(), b_h.get(), b_elems);
  GPULINT_LAUNCHED();
  stream.sync();

  EventTimer timer;
  auto tflops = [&](const Format& f, int64_t k, const std::string& id, const std::string& label) {
    const Matmul mm(lt, f, cm, cn, k, kWorkspace);
    const void* a = f.type == CUDA_R_32F    ? static_cast<const void*>(a32.get())
                    : f.type == CUDA_R_16BF ? static_cast<const void*>(a_bf.get())
                                            : static_cast<const void*>(a_h.get());
    const void* b = f.type == CUDA_R_32F    ? static_cast<const void*>(b32.get())
                    : f.type == CUDA_R_16BF ? static_cast<const void*>(b_bf.get())
                                            : static_cast<const void*>(b_h.get());
    void* c = f.type == CUDA_R_32F    ? static_cast<void*>(c32.get())
              : f.type == CUDA_R_16BF ? static_cast<void*>(c_bf.get())
                                      : static_cast<void*>(c_h.get());
    // Enough GEMMs per sample that one sample lasts about 3 ms.
    timer.start(stream.get());
    mm.run(a, b, c, workspace.get(), stream.get());
    timer.stop(stream.get());
    const double one_ms = std::max(timer.elapsed_ms(), 1e-3);
    const int reps = std::clamp(static_cast<int>(3.0 / one_ms), 1, 200);
    StableOptions options;
    options.budget_s = p.budget_s / 2;
    const Measurement time = measure(
        id + ".ms", label, "ms",
        [&] {
          timer.start(stream.get());
          for (int r = 0; r < reps; ++r) mm.run(a, b, c, workspace.get(), stream.get());
          timer.stop(stream.get());
          return timer.elapsed_ms() / reps;
        },
        options);
    const double gflop = 2.0 * static_cast<double>(cm) * cn * k / 1e9;
    return rate_of(time, gflop, id, label, "TFLOP/s");
  };

  const Peak peak = peak_of(d);
  const std::string shape = format_gemm(p.gemm);
  const Measurement fp32 = tflops(kFP32, p.gemm.k, "gemm.fp32", "FP32 " + shape);
  out.measurements.push_back(fp32);
  std::string shares = peak.fp32 > 0 ? "share of dense peak (" + peak.source + "): FP32 " +
                                           fixed(100 * fp32.stats.median / peak.fp32, 0) + "%"
                                     : "dense peak unknown for sm_" + std::to_string(d.cc_major) +
                                           std::to_string(d.cc_minor);
  std::string speedups = "speed-up over FP32:";
  for (const Format* f : {&kTF32, &kBF16, &kFP16}) {
    const Measurement m =
        tflops(*f, p.gemm.k, std::string("gemm.") + f->id, std::string(f->label) + " " + shape);
    out.measurements.push_back(m);
    const double pk = f == &kTF32 ? peak.tf32 : peak.half;
    if (pk > 0 && peak.fp32 > 0)
      shares += std::string(", ") + f->label + " " + fixed(100 * m.stats.median / pk, 0) + "%";
    speedups += std::string(" ") + f->label + " x" + fixed(m.stats.median / fp32.stats.median, 1);
  }
  out.notes.push_back(shares);
  out.notes.push_back(speedups);
  for (int64_t k : ks) {
    const std::string label = "BF16 " + std::to_string(p.gemm.m) + "x" + std::to_string(p.gemm.n) +
                              "x" + std::to_string(k) +
                              (k % 8 == 0 ? "" : " (K not a multiple of 8)");
    out.measurements.push_back(tflops(kBF16, k, "gemm.bf16.k" + std::to_string(k), label));
  }
  out.parameters.emplace_back("gemm_shape", shape);
  std::string dims;
  for (int64_t dim : p.unaligned_dims) dims += (dims.empty() ? "" : ",") + std::to_string(dim);
  out.parameters.emplace_back("unaligned_dims", dims);
}

}  // namespace gpulint::verifier

#pragma once

// The verifier's parameters: the defaults README.md documents, the flags `gpulint verify`
// sets from the command line and from what findings know statically, and the same flags as
// `gpulint-verifier` parses them. One struct, one spelling, so the two sides cannot drift.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::verifier {

class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool operator==(const GemmShape&) const = default;
};

struct Params {
  std::vector<std::string> experiments;  // empty: all, in catalog order
  int steps = 100;                       // steps timed per sample in the step-loop experiments
  int kernels_per_step = 16;             // sync, debug: kernels a step launches
  std::string profile = "balanced";      // sync, debug: the step profile costs are quoted for
  std::vector<int64_t> batch_shape = {64, 3, 224, 224};  // transfer, fill: an fp32 batch
  GemmShape gemm = {4096, 4096, 4096};                   // precision: a layer's GEMM
  GemmShape cpu_gemm = {1024, 4096, 4096};               // placement: CPU vs GPU GEMM
  std::vector<int64_t> batch_sizes;              // loading: sizes to measure besides the sweep
  std::vector<int64_t> unaligned_dims = {4095};  // precision: K not divisible by 8
  double loader_cpu_ms = 4;                      // loading: CPU preprocessing per batch, one core
  double loader_gpu_ms = 2;                      // loading: GPU work per step
  int workers = 4;                               // loading: producer threads
  std::vector<int64_t> layer = {4096, 4096};     // dynamic: in x out of the re-created layer
  int alloc_buffers = 8;  // dynamic: batch-sized buffers freed + re-allocated
  double budget_s = 0.3;  // time for one figure's repeats, warm-up excluded
  // Where the host time of PyTorch's calls comes from (host_model.h): "auto" measures it
  // through `python` when that has torch and sees the GPU; "cuda" leaves it out.
  std::string host_model = "auto";
  std::string python = "python3";
  std::string inject_error;  // tests only: this experiment makes a bad CUDA call

  bool runs(std::string_view experiment) const;
  int64_t batch_bytes() const;  // fp32 elements of batch_shape x 4
};

// "64x3x224x224" -> {64, 3, 224, 224}; every dimension positive. Throws ParamError.
std::vector<int64_t> parse_shape(std::string_view text);
std::string format_shape(const std::vector<int64_t>& shape);
// "4096x4096x4096" as M x N x K. Throws ParamError.
GemmShape parse_gemm(std::string_view text);
std::string format_gemm(const GemmShape& shape);

// Every parameter as `--flag value` pairs, and back. Throws ParamError for an unknown flag,
// a missing value or a malformed one.
std::vector<std::string> to_args(const Params& params);
Params params_from_args(const std::vector<std::string>& args);

// name=value pairs for the report: what each experiment actually ran with.
std::vector<std::pair<std::string, std::string>> describe(const Params& params);

}  // namespace gpulint::verifier

#include "verifier/harness/catalog.h"

namespace gpulint::verifier {

const std::vector<ExperimentInfo>& experiment_catalog() {
  static const std::vector<ExperimentInfo> catalog = {
      {"sync",
       "many small kernels a step: pipelined vs a 4-byte readback, a device sync or a printed "
       "value each step"},
      {"dynamic",
       "count + readback + size-dependent launch vs fixed size; cudaFree/cudaMalloc per step vs "
       "reuse; a layer's weights re-created and uploaded per step vs reuse"},
      {"loading",
       "CPU preprocessing inline before each step vs producer threads; throughput against "
       "batch size"},
      {"transfer",
       "host-to-device copy of a batch from pageable vs pinned memory: bandwidth, host time, "
       "overlap with a kernel"},
      {"placement", "a layer-sized GEMM on the CPU vs cuBLAS; host fill + copy vs device fill"},
      {"precision", "cuBLASLt GEMM in FP32, TF32, BF16, FP16; dims not divisible by 8"},
      {"debug", "a sync after every kernel (CUDA_LAUNCH_BLOCKING) vs asynchronous"},
  };
  return catalog;
}

const ExperimentInfo* find_experiment(std::string_view name) {
  for (const ExperimentInfo& e : experiment_catalog()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace gpulint::verifier

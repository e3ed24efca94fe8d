#include "verifier/harness/catalog.h"

#include <algorithm>

namespace gpulint::verifier {

const std::vector<ExperimentInfo>& experiment_catalog() {
  static const std::vector<ExperimentInfo> catalog = {
      {"sync",
       {"GL101", "GL102", "GL103", "GL104", "GL105"},
       "many small kernels a step: pipelined vs a 4-byte readback, a device sync or a printed "
       "value each step"},
      {"dynamic",
       {"GL106", "GL107", "GL503"},
       "count + readback + size-dependent launch vs fixed size; cudaFree/cudaMalloc per step vs "
       "reuse; a layer's weights re-created and uploaded per step vs reuse"},
      {"loading",
       {"GL201", "GL206"},
       "CPU preprocessing inline before each step vs producer threads; throughput against "
       "batch size"},
      {"transfer",
       {"GL202", "GL204", "GL205"},
       "host-to-device copy of a batch from pageable vs pinned memory: bandwidth, host time, "
       "overlap with a kernel"},
      {"placement",
       {"GL301", "GL302", "GL303"},
       "a layer-sized GEMM on the CPU vs cuBLAS; host fill + copy vs device fill"},
      {"precision",
       {"GL401", "GL403", "GL404", "GL405"},
       "cuBLASLt GEMM in FP32, TF32, BF16, FP16; dims not divisible by 8"},
      {"debug", {"GL501"}, "a sync after every kernel (CUDA_LAUNCH_BLOCKING) vs asynchronous"},
  };
  return catalog;
}

const ExperimentInfo* find_experiment(std::string_view name) {
  for (const ExperimentInfo& e : experiment_catalog()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const ExperimentInfo* experiment_for_rule(std::string_view code) {
  for (const ExperimentInfo& e : experiment_catalog()) {
    if (std::find(e.rules.begin(), e.rules.end(), code) != e.rules.end()) return &e;
  }
  return nullptr;
}

RuleSelection experiments_for_rules(const std::vector<std::string>& codes) {
  RuleSelection out;
  std::vector<bool> wanted(experiment_catalog().size(), false);
  for (const std::string& code : codes) {
    const ExperimentInfo* e = experiment_for_rule(code);
    if (e == nullptr) {
      if (std::find(out.unmeasured.begin(), out.unmeasured.end(), code) == out.unmeasured.end()) {
        out.unmeasured.push_back(code);
      }
      continue;
    }
    wanted[static_cast<size_t>(e - experiment_catalog().data())] = true;
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i]) out.experiments.emplace_back(experiment_catalog()[i].name);
  }
  return out;
}

}  // namespace gpulint::verifier

#pragma once

// What the Python that would run the user's code knows about torch and CUDA: a short script
// run in that interpreter prints one JSON object, parsed here into plain data.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::system {

struct TorchDevice {
  std::string name;
  int capability_major = 0;
  int capability_minor = 0;
};

struct TorchFacts {
  bool ran = false;   // the interpreter ran and printed the probe's JSON
  std::string error;  // why not: not found, timed out, no JSON (with its stderr)
  std::string python_executable;
  std::string python_version;
  bool torch_installed = false;
  std::string import_error;
  std::string version;                      // torch.__version__
  std::optional<std::string> cuda_version;  // torch.version.cuda; absent in CPU-only builds
  bool cuda_available = false;
  std::vector<std::string> arch_list;  // torch.cuda.get_arch_list()
  std::vector<TorchDevice> devices;
  std::optional<bool> matmul_allow_tf32;
  std::optional<bool> cudnn_allow_tf32;
  std::string float32_matmul_precision;
  std::optional<bool> cudnn_enabled;
  std::optional<bool> cudnn_benchmark;
  std::optional<int> cudnn_version;  // absent when cuDNN is not available to torch
};

// The script `python -c` runs; it prints one JSON line and never raises.
extern const char* const kTorchProbeScript;

// Parses the probe's stdout (the last line that is a JSON object).
TorchFacts parse_torch_probe(std::string_view stdout_text);

TorchFacts run_torch_probe(const std::string& python, std::chrono::milliseconds limit);

}  // namespace gpulint::system

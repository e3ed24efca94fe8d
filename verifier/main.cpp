// gpulint-verifier: runs the experiments and writes their JSON report (schema
// gpulint-verifier/1). `gpulint verify` starts it; it also runs on its own:
//   gpulint-verifier [--output FILE] [--experiments sync,transfer] [--steps N] ...
// Exit codes: 0 the report was written (an experiment that failed says so inside it),
// 2 bad arguments, 3 no usable GPU (the report's "unavailable" says why), 4 I/O error.

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "verifier/experiments/cpu_gemm.h"
#include "verifier/experiments/cuda_util.h"
#include "verifier/experiments/experiment.h"
#include "verifier/harness/catalog.h"
#include "verifier/harness/host_load.h"
#include "verifier/harness/host_model.h"
#include "verifier/harness/params.h"
#include "verifier/harness/report.h"
#include "verifier/harness/stable.h"

namespace gpulint::verifier {
namespace {

using Run = void (*)(const Params&, const DeviceInfo&, ExperimentResult&);

Run runner(std::string_view name) {
  if (name == "sync") return run_sync;
  if (name == "dynamic") return run_dynamic;
  if (name == "loading") return run_loading;
  if (name == "transfer") return run_transfer;
  if (name == "placement") return run_placement;
  if (name == "precision") return run_precision;
  if (name == "debug") return run_debug;
  return nullptr;
}

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Why no experiment can run here, if so.
std::optional<Unavailable> check_gpu() {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == nullptr) {
    return Unavailable{"no-driver",
                       "no NVIDIA driver: libcuda.so.1 cannot be loaded, so no GPU can be used"};
  }
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    return Unavailable{"no-driver", "the NVIDIA driver supports CUDA " + version_text(driver) +
                                        ", older than the verifier's CUDA runtime " +
                                        version_text(runtime)};
  }
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return Unavailable{
        "no-gpu",
        std::string("no CUDA GPU is visible") +
            (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string())};
  }
  if (status != cudaSuccess) {
    return Unavailable{
        "no-gpu", std::string("the CUDA driver cannot use a GPU: ") + cudaGetErrorString(status)};
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    return Unavailable{"no-gpu", "the CUDA driver cannot describe GPU 0"};
  }
  if (prop.major * 10 + prop.minor < 75) {
    return Unavailable{"old-gpu", std::string("GPU 0 (") + prop.name + ") is sm_" +
                                      std::to_string(prop.major) + std::to_string(prop.minor) +
                                      "; the verifier needs sm_75 or newer (CUDA 13's minimum)"};
  }
  return std::nullopt;
}

ExperimentResult run_one(const ExperimentInfo& info, const Params& params,
                         const DeviceInfo& device) {
  ExperimentResult result;
  result.name = info.name;
  const double t0 = monotonic_seconds();
  const HostLoadMeter load;
  try {
    if (params.inject_error == info.name) {
      void* p = nullptr;
      GPULINT_CUDA(cudaMalloc(&p, size_t{1} << 60));  // more memory than any GPU has
    }
    runner(info.name)(params, device, result);
  } catch (const std::exception& e) {
    result.ok = false;
    result.error = e.what();
    // A sticky error (a kernel fault) poisons the context: reset it so the next experiment
    // starts on a clean one.
    cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) cudaDeviceReset();
  }
  result.wall_s = monotonic_seconds() - t0;
  result.clocks_after = read_clocks();
  result.host_load = load.load();
  return result;
}

bool write(const std::string& path, const std::string& text) {
  if (path.empty()) return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string output;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::printf(
          "usage: gpulint-verifier [--output FILE] [--experiments LIST] [options]\n"
          "options are described in verifier/README.md\n");
      return 0;
    }
    if (args[i] == "--output" && i + 1 < args.size()) {
      output = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
      break;
    }
  }
  Params params;
  try {
    params = params_from_args(args);
  } catch (const ParamError& e) {
    std::fprintf(stderr, "gpulint-verifier: error: %s\n", e.what());
    return 2;
  }
  Report report;
  if (std::optional<Unavailable> why = check_gpu()) {
    report.unavailable = std::move(why);
    if (!write(output, to_json(report))) return 4;
    std::fprintf(stderr, "gpulint-verifier: %s\n", report.unavailable->message.c_str());
    return 3;
  }
  const double t0 = monotonic_seconds();
  try {
    report.device = read_device_info();
  } catch (const std::exception& e) {
    report.unavailable = Unavailable{"no-gpu", std::string("cannot read the GPU: ") + e.what()};
    if (!write(output, to_json(report))) return 4;
    return 3;
  }
  report.device.cpu_gemm = cpu_gemm_name();
  if (params.host_model == "auto") {
    ProbeWork work;
    if (params.runs("placement")) work = {params.cpu_gemm, params.batch_bytes() / 4};
    report.device.host = probe_host_model(params.python, 120, work);
  } else {
    report.device.host.detail = "--host-model cuda";
  }
  report.parameters = describe(params);
  for (const ExperimentInfo& info : experiment_catalog()) {
    if (params.runs(info.name)) report.experiments.push_back(run_one(info, params, report.device));
  }
  report.wall_s = monotonic_seconds() - t0;
  return write(output, to_json(report)) ? 0 : 4;
}

}  // namespace
}  // namespace gpulint::verifier

int main(int argc, char** argv) { return gpulint::verifier::run(argc, argv); }

#include "doctor/doctor.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "doctor/arch_coverage.h"

namespace gpulint::system {
namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
// Memory another process holds: above this share the run competes for the GPU.
constexpr double kBusyMemoryShare = 0.10;

Check pass(std::string id, std::string message) {
  return {std::move(id), CheckStatus::Pass, std::move(message), ""};
}
Check warn(std::string id, std::string message, std::string fix) {
  return {std::move(id), CheckStatus::Warn, std::move(message), std::move(fix)};
}
Check fail(std::string id, std::string message, std::string fix) {
  return {std::move(id), CheckStatus::Fail, std::move(message), std::move(fix)};
}

const char* status_word(CheckStatus status) {
  switch (status) {
    case CheckStatus::Pass:
      return "pass";
    case CheckStatus::Warn:
      return "warn";
    case CheckStatus::Fail:
      return "fail";
  }
  return "fail";
}

// "9.10.2" from 91002 (cuDNN 9 encodes major*10000) and "8.9.7" from 8907 (cuDNN 8: *1000).
std::string cudnn_version_string(int v) {
  if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100);
}

// 13000 from "13.0"; 0 when it does not parse.
int encode_cuda_version(const std::string& text) {
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "%d.%d", &major, &minor) < 1) return 0;
  return major * 1000 + minor * 10;
}

std::string wheel_index_hint(int driver_cuda) {
  if (driver_cuda == 0) return "a build for the CUDA version your driver supports";
  return fmt::format(
      "a CUDA build: pip install --force-reinstall torch --index-url "
      "https://download.pytorch.org/whl/cuXYZ, with the newest cuXYZ at or below the driver's "
      "CUDA {}",
      cuda_version_string(driver_cuda));
}

void driver_checks(const DoctorInputs& in, DoctorReport* report) {
  if (!in.driver.loaded) {
    report->no_gpu = true;
    report->checks.push_back(
        fail("nvidia-driver", "no NVIDIA driver: " + in.driver.error,
             "install the NVIDIA driver for this GPU (your distribution's nvidia-driver package or "
             "NVIDIA's installer); in a container, pass the GPUs in (docker run --gpus all with "
             "the NVIDIA Container Toolkit)"));
  } else {
    report->checks.push_back(pass(
        "nvidia-driver", fmt::format("NVIDIA driver {}, supports CUDA {}", in.driver.driver_version,
                                     cuda_version_string(in.driver.cuda_driver_version))));
  }
  if (!in.cuda.loaded) {
    report->checks.push_back(
        fail("cuda-driver", "CUDA driver API unusable: " + in.cuda.error,
             "libcuda.so.1 comes with the NVIDIA driver: reinstall it (in a container, the NVIDIA "
             "Container Toolkit mounts it)"));
  } else {
    report->checks.push_back(pass(
        "cuda-driver",
        fmt::format("CUDA driver API {} (libcuda.so.1)", cuda_version_string(in.cuda.version))));
  }
}

void gpu_checks(const DoctorInputs& in, DoctorReport* report) {
  if (!in.driver.loaded) return;
  const auto& gpus = in.driver.gpus;
  if (gpus.empty()) {
    report->no_gpu = true;
    report->checks.push_back(fail("gpus", "the driver is loaded but reports no GPU",
                                  "check `nvidia-smi` and the kernel log (dmesg) for the GPU"));
    return;
  }
  for (const GpuFacts& gpu : gpus) {
    std::string message =
        fmt::format("GPU {}: {}, compute capability {}.{}, {:.1f} GiB ({:.1f} GiB in use)",
                    gpu.index, gpu.name, gpu.capability_major, gpu.capability_minor,
                    static_cast<double>(gpu.memory_total_bytes) / kBytesPerGib,
                    static_cast<double>(gpu.memory_used_bytes) / kBytesPerGib);
    if (gpu.sm_clock_mhz && gpu.sm_clock_max_mhz) {
      message += fmt::format(", SM clock {} of {} MHz", *gpu.sm_clock_mhz, *gpu.sm_clock_max_mhz);
    }
    const double used_share = gpu.memory_total_bytes == 0
                                  ? 0
                                  : static_cast<double>(gpu.memory_used_bytes) /
                                        static_cast<double>(gpu.memory_total_bytes);
    if (used_share > kBusyMemoryShare) {
      report->checks.push_back(
          warn(fmt::format("gpu{}", gpu.index),
               message + fmt::format(": {:.0f}% of its memory is already taken", used_share * 100),
               "another process is using this GPU (see `nvidia-smi`): a job sharing it gets less "
               "memory and less time"));
    } else {
      report->checks.push_back(pass(fmt::format("gpu{}", gpu.index), message));
    }
  }
  std::vector<std::string> off;
  for (const GpuFacts& gpu : gpus) {
    if (gpu.persistence_mode && !*gpu.persistence_mode) off.push_back(std::to_string(gpu.index));
  }
  if (!off.empty()) {
    report->checks.push_back(warn(
        "persistence-mode",
        fmt::format("persistence mode is off on GPU {}: the driver tears its state down whenever "
                    "no process uses it, so each run pays the GPU's initialisation again",
                    fmt::join(off, ", ")),
        "as root: nvidia-smi -pm 1, or run nvidia-persistenced"));
  } else {
    report->checks.push_back(pass("persistence-mode", "persistence mode is on"));
  }
}

void visibility_check(const DoctorInputs& in, DoctorReport* report) {
  if (!in.driver.loaded || in.driver.gpus.empty() || !in.cuda.loaded) return;
  const size_t total = in.driver.gpus.size();
  const bool none_visible = in.cuda.init_error == "CUDA_ERROR_NO_DEVICE" ||
                            (in.cuda.visible_devices && *in.cuda.visible_devices == 0);
  const std::string env = in.cuda_visible_devices
                              ? fmt::format("CUDA_VISIBLE_DEVICES='{}'", *in.cuda_visible_devices)
                              : "";
  if (none_visible && in.cuda_visible_devices) {
    report->checks.push_back(fail(
        "cuda-visible-devices",
        fmt::format("{} hides all {} GPU{} from CUDA", env, total, total == 1 ? "" : "s"),
        fmt::format("unset CUDA_VISIBLE_DEVICES, or list the GPUs to use by index (0 to {}) or "
                    "UUID (nvidia-smi -L)",
                    total - 1)));
  } else if (none_visible || !in.cuda.init_error.empty()) {
    report->checks.push_back(fail(
        "cuda-visible-devices",
        fmt::format("cuInit failed ({}) though NVML lists {} GPU{}",
                    in.cuda.init_error.empty() ? "no device" : in.cuda.init_error, total,
                    total == 1 ? "" : "s"),
        "the device files /dev/nvidia* must be accessible (in a container, pass them in); check "
        "dmesg for the driver's errors"));
  } else if (in.cuda_visible_devices) {
    report->checks.push_back(
        pass("cuda-visible-devices", fmt::format("{} shows CUDA {} of {} GPUs", env,
                                                 in.cuda.visible_devices.value_or(0), total)));
  } else {
    report->checks.push_back(pass(
        "cuda-visible-devices",
        fmt::format("CUDA sees {} GPU{} (CUDA_VISIBLE_DEVICES unset)",
                    in.cuda.visible_devices.value_or(0), in.cuda.visible_devices == 1 ? "" : "s")));
  }
}

void arch_check(const DoctorInputs& in, DoctorReport* report) {
  const TorchFacts& t = in.torch;
  if (t.arch_list.empty()) return;
  // The GPUs torch sees when it can; otherwise every GPU the driver knows.
  std::vector<TorchDevice> gpus = t.devices;
  if (gpus.empty()) {
    for (const GpuFacts& g : in.driver.gpus) {
      gpus.push_back({g.name, g.capability_major, g.capability_minor});
    }
  }
  const std::string archs = fmt::format("{}", fmt::join(t.arch_list, " "));
  for (size_t i = 0; i < gpus.size(); ++i) {
    const TorchDevice& gpu = gpus[i];
    const std::string label = fmt::format("GPU {} ({}, compute capability {}.{})", i, gpu.name,
                                          gpu.capability_major, gpu.capability_minor);
    const std::string id = fmt::format("torch-arch-gpu{}", i);
    switch (arch_coverage(t.arch_list, gpu.capability_major, gpu.capability_minor)) {
      case ArchCoverage::Native:
        report->checks.push_back(
            pass(id, fmt::format("torch's kernels are compiled for {} [{}]", label, archs)));
        break;
      case ArchCoverage::PtxOnly:
        report->checks.push_back(warn(
            id,
            fmt::format("torch has only PTX for {} [{}]: the driver compiles every kernel at its "
                        "first launch, and arch-specific kernels are missing",
                        label, archs),
            fmt::format("install a torch build whose arch list has sm_{}{}", gpu.capability_major,
                        gpu.capability_minor)));
        break;
      case ArchCoverage::None:
        report->checks.push_back(fail(
            id,
            fmt::format("torch was compiled for [{}], none of which runs on {}: CUDA calls fail "
                        "with 'no kernel image is available for execution on the device'",
                        archs, label),
            fmt::format("install a torch build for this GPU (a newer wheel), or build torch with "
                        "TORCH_CUDA_ARCH_LIST={}.{}",
                        gpu.capability_major, gpu.capability_minor)));
        break;
    }
  }
}

bool any_gpu_has_tf32(const DoctorInputs& in) {
  // TF32 tensor cores exist from Ampere (compute capability 8.0) on.
  for (const GpuFacts& g : in.driver.gpus) {
    if (g.capability_major >= 8) return true;
  }
  for (const TorchDevice& d : in.torch.devices) {
    if (d.capability_major >= 8) return true;
  }
  return false;
}

void settings_checks(const DoctorInputs& in, DoctorReport* report) {
  const TorchFacts& t = in.torch;
  if (!t.cuda_available) return;
  if (any_gpu_has_tf32(in)) {
    const bool matmul_tf32 =
        t.matmul_allow_tf32.value_or(false) ||
        (t.float32_matmul_precision == "high" || t.float32_matmul_precision == "medium");
    if (!matmul_tf32) {
      report->checks.push_back(warn(
          "tf32-matmul",
          fmt::format("by default FP32 matrix products run in full FP32, not on the TF32 tensor "
                      "cores (allow_tf32 False, float32_matmul_precision '{}')",
                      t.float32_matmul_precision),
          "in the training script: torch.set_float32_matmul_precision('high'), or train under "
          "autocast (gpulint rules GL404, GL401)"));
    } else {
      report->checks.push_back(pass("tf32-matmul", "FP32 matrix products may use TF32"));
    }
    if (t.cudnn_allow_tf32 == false) {
      report->checks.push_back(warn("tf32-cudnn",
                                    "cuDNN convolutions run in full FP32 (cudnn.allow_tf32 False)",
                                    "torch.backends.cudnn.allow_tf32 = True (GL404)"));
    } else {
      report->checks.push_back(pass("tf32-cudnn", "cuDNN convolutions may use TF32"));
    }
  }
  if (!t.cudnn_version) {
    report->checks.push_back(warn("cudnn",
                                  "cuDNN is not available to torch: convolutions and RNNs "
                                  "fall back to slower kernels",
                                  "install a torch build that carries cuDNN (the default wheels "
                                  "do)"));
  } else if (t.cudnn_enabled == false) {
    report->checks.push_back(warn(
        "cudnn",
        fmt::format("cuDNN {} is installed but disabled", cudnn_version_string(*t.cudnn_version)),
        "torch.backends.cudnn.enabled = True"));
  } else {
    report->checks.push_back(
        pass("cudnn", fmt::format("cuDNN {} enabled; benchmark mode {} (turn it on for fixed input "
                                  "shapes: torch.backends.cudnn.benchmark = True)",
                                  cudnn_version_string(*t.cudnn_version),
                                  t.cudnn_benchmark.value_or(false) ? "on" : "off")));
  }
}

void torch_checks(const DoctorInputs& in, DoctorReport* report) {
  const TorchFacts& t = in.torch;
  if (!t.ran) {
    report->checks.push_back(
        fail("python", fmt::format("the Python probe could not run: {}", t.error),
             "name the interpreter that runs your training: gpulint doctor --python PATH"));
    return;
  }
  report->checks.push_back(
      pass("python", fmt::format("Python {} ({})", t.python_version, t.python_executable)));
  if (!t.torch_installed) {
    report->checks.push_back(
        fail("torch",
             fmt::format("torch is not installed for {} ({})", t.python_executable, t.import_error),
             "pip install torch (a CUDA build; see https://pytorch.org/get-started/locally/), or "
             "point --python at the environment that has it"));
    return;
  }
  const int driver_cuda = in.cuda.loaded ? in.cuda.version : in.driver.cuda_driver_version;
  const bool cpu_only = !t.cuda_version || t.version.find("+cpu") != std::string::npos;
  if (cpu_only) {
    report->checks.push_back(fail(
        "torch-cuda-build",
        fmt::format("torch {} is a CPU-only build (torch.version.cuda is None): nothing runs on "
                    "the GPU",
                    t.version),
        "install " + wheel_index_hint(driver_cuda) +
            "; gpulint rule GL304 finds CPU-only pins in requirements files"));
  } else {
    report->checks.push_back(pass("torch-cuda-build", fmt::format("torch {}, built with CUDA {}",
                                                                  t.version, *t.cuda_version)));
    const int torch_cuda = encode_cuda_version(*t.cuda_version);
    if (driver_cuda > 0 && torch_cuda > 0) {
      const std::string both = fmt::format("torch's CUDA {} against the driver's CUDA {}",
                                           *t.cuda_version, cuda_version_string(driver_cuda));
      if (torch_cuda > driver_cuda) {
        report->checks.push_back(
            fail("torch-cuda-vs-driver", both + ": torch needs a newer driver",
                 fmt::format("update the NVIDIA driver to one for CUDA {} or later, or install {}",
                             *t.cuda_version, wheel_index_hint(driver_cuda))));
      } else {
        report->checks.push_back(pass("torch-cuda-vs-driver", both));
      }
    }
  }
  if (!t.cuda_available) {
    report->checks.push_back(fail(
        "torch-cuda-available", "torch.cuda.is_available() is False",
        "fix the failures above; if there are none, python -c 'import torch; torch.cuda.init()' "
        "shows CUDA's own error"));
  } else {
    report->checks.push_back(pass("torch-cuda-available",
                                  fmt::format("torch.cuda.is_available(): torch sees {} GPU{}",
                                              t.devices.size(), t.devices.size() == 1 ? "" : "s")));
  }
  arch_check(in, report);
  settings_checks(in, report);
}

}  // namespace

int DoctorReport::exit_code() const {
  if (no_gpu) return 3;
  const bool failed = std::any_of(checks.begin(), checks.end(),
                                  [](const Check& c) { return c.status == CheckStatus::Fail; });
  return failed ? 1 : 0;
}

DoctorReport run_doctor_checks(const DoctorInputs& inputs) {
  DoctorReport report;
  driver_checks(inputs, &report);
  gpu_checks(inputs, &report);
  visibility_check(inputs, &report);
  torch_checks(inputs, &report);
  return report;
}

std::string render_doctor_text(const DoctorReport& report) {
  std::string out = "gpulint doctor\n";
  size_t width = 0;
  int counts[3] = {0, 0, 0};
  for (const Check& c : report.checks) width = std::max(width, c.id.size());
  for (const Check& c : report.checks) {
    ++counts[static_cast<int>(c.status)];
    out += fmt::format("  {}  {:<{}}  {}\n", status_word(c.status), c.id, width, c.message);
    if (!c.fix.empty()) out += fmt::format("        {:<{}}  fix: {}\n", "", width, c.fix);
  }
  out += fmt::format("{} passed, {} warning{}, {} failed", counts[0], counts[1],
                     counts[1] == 1 ? "" : "s", counts[2]);
  if (report.no_gpu) out += "; no usable NVIDIA GPU on this machine";
  return out + "\n";
}

std::string render_doctor_json(const DoctorReport& report, const DoctorInputs& inputs,
                               const std::string& tool_version) {
  using Json = nlohmann::ordered_json;
  Json checks = Json::array();
  int counts[3] = {0, 0, 0};
  for (const Check& c : report.checks) {
    ++counts[static_cast<int>(c.status)];
    Json check = {{"id", c.id}, {"status", status_word(c.status)}, {"message", c.message}};
    if (!c.fix.empty()) check["fix"] = c.fix;
    checks.push_back(std::move(check));
  }
  Json gpus = Json::array();
  for (const GpuFacts& g : inputs.driver.gpus) {
    Json gpu = {
        {"index", g.index},
        {"name", g.name},
        {"compute_capability", fmt::format("{}.{}", g.capability_major, g.capability_minor)},
        {"memory_total_bytes", g.memory_total_bytes},
        {"memory_used_bytes", g.memory_used_bytes}};
    gpu["persistence_mode"] = g.persistence_mode ? Json(*g.persistence_mode) : Json(nullptr);
    gpu["sm_clock_mhz"] = g.sm_clock_mhz ? Json(*g.sm_clock_mhz) : Json(nullptr);
    gpu["sm_clock_max_mhz"] = g.sm_clock_max_mhz ? Json(*g.sm_clock_max_mhz) : Json(nullptr);
    gpus.push_back(std::move(gpu));
  }
  Json doc = {{"tool", "gpulint"}, {"version", tool_version}};
  doc["driver"] = inputs.driver.loaded
                      ? Json{{"version", inputs.driver.driver_version},
                             {"cuda", cuda_version_string(inputs.driver.cuda_driver_version)}}
                      : Json(nullptr);
  doc["cuda_driver_api"] =
      inputs.cuda.loaded ? Json(cuda_version_string(inputs.cuda.version)) : Json(nullptr);
  doc["gpus"] = std::move(gpus);
  const TorchFacts& t = inputs.torch;
  doc["torch"] = t.torch_installed
                     ? Json{{"version", t.version},
                            {"cuda", t.cuda_version ? Json(*t.cuda_version) : Json(nullptr)},
                            {"cuda_available", t.cuda_available},
                            {"arch_list", t.arch_list}}
                     : Json(nullptr);
  doc["checks"] = std::move(checks);
  doc["summary"] = {{"pass", counts[0]},
                    {"warn", counts[1]},
                    {"fail", counts[2]},
                    {"no_gpu", report.no_gpu},
                    {"exit_code", report.exit_code()}};
  return doc.dump(2) + "\n";
}

}  // namespace gpulint::system

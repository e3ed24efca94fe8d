#pragma once

// `gpulint doctor`'s checks as a pure function of what the driver, the CUDA driver API, the
// environment and the user's Python reported, so every verdict is testable without a GPU.

#include <optional>
#include <string>
#include <vector>

#include "doctor/torch_probe.h"
#include "machine/gpu_facts.h"

namespace gpulint::system {

enum class CheckStatus { Pass, Warn, Fail };

struct Check {
  std::string id;  // stable, for --format json readers
  CheckStatus status = CheckStatus::Pass;
  std::string message;
  std::string fix;  // what to do; empty on a pass
};

struct DoctorInputs {
  DriverFacts driver;
  CudaDriverFacts cuda;
  std::optional<std::string> cuda_visible_devices;
  TorchFacts torch;
};

struct DoctorReport {
  std::vector<Check> checks;
  bool no_gpu = false;  // no driver, or a driver with no GPU: exit 3

  // 3 without a GPU, else 1 when a check failed, else 0 (warnings do not fail).
  int exit_code() const;
};

DoctorReport run_doctor_checks(const DoctorInputs& inputs);

std::string render_doctor_text(const DoctorReport& report);
std::string render_doctor_json(const DoctorReport& report, const DoctorInputs& inputs,
                               const std::string& tool_version);

}  // namespace gpulint::system

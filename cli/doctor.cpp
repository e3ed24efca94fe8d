// `gpulint doctor`: is the GPU usable at all, for the Python that would run the training?

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/output.h"
#include "cli/subcommand.h"
#include "doctor/doctor.h"
#include "doctor/torch_probe.h"
#include "machine/cuda_driver.h"
#include "machine/nvml_library.h"

namespace gpulint {
namespace {

struct DoctorOptions {
  std::string python = "python3";
  std::string format = "text";
  unsigned timeout_s = 60;
};

int run_doctor(const DoctorOptions& options) {
  system::DoctorInputs inputs;
  inputs.driver = system::read_driver_facts();
  inputs.cuda = system::read_cuda_driver_facts();
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    inputs.cuda_visible_devices = visible;
  }
  inputs.torch = system::run_torch_probe(options.python, std::chrono::seconds(options.timeout_s));
  const system::DoctorReport report = system::run_doctor_checks(inputs);
  const std::string bytes = options.format == "json"
                                ? system::render_doctor_json(report, inputs, GPULINT_VERSION)
                                : system::render_doctor_text(report);
  if (!write_stdout(bytes)) return kExitError;
  return report.exit_code();
}

}  // namespace

Subcommand add_doctor(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* cmd = app.add_subcommand(
      "doctor", "Check the NVIDIA driver, the GPUs and the Python's torch build; needs no GPU");
  cmd->add_option("--python", options->python,
                  "The Python interpreter that runs your training (its torch is checked)")
      ->capture_default_str();
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--python-timeout", options->timeout_s,
                  "Seconds the Python probe may take (importing torch can be slow)")
      ->check(CLI::Range(1u, 3600u))
      ->capture_default_str();
  cmd->footer(
      "Each check passes, warns or fails, and every warning and failure says how to fix it.\n"
      "Exit codes: 0 no check failed (warnings allowed), 1 a check failed, 2 usage error,\n"
      "3 no NVIDIA driver or no GPU on this machine.");
  return {cmd, [options] { return run_doctor(*options); }};
}

}  // namespace gpulint

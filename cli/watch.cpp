// `gpulint watch -- CMD ARGS...`: run the command, sample the GPUs through NVML while it runs,
// then draw the utilisation and name its shape, with the rules that find the causes.

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cli/output.h"
#include "cli/subcommand.h"
#include "machine/nvml_library.h"
#include "machine/process.h"
#include "rules/registry.h"
#include "watch/classifier.h"
#include "watch/sampler.h"
#include "watch/sparkline.h"
#include "watch/svg_chart.h"
#include "watch/trace_json.h"

namespace gpulint {
namespace {

struct WatchOptions {
  int interval_ms = 50;
  std::string output;
  std::string plot;
  std::vector<std::string> command;
};

constexpr double kMibPerGib = 1024;

size_t sparkline_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::clamp<size_t>(size.ws_col, 24, 124) - 4;
  }
  return 72;
}

std::string rule_list(const std::vector<std::string>& codes) {
  std::string out;
  for (const std::string& code : codes) {
    const Rule* rule = find_rule(code);
    out += fmt::format("{}{}{}", out.empty() ? "" : ", ", code,
                       rule ? " " + std::string(rule->info.name) : "");
  }
  return out;
}

std::string command_text(const std::vector<std::string>& command) {
  return fmt::format("{}", fmt::join(command, " "));
}

std::string render_report(const system::Trace& trace,
                          const std::vector<system::Diagnosis>& diagnoses) {
  std::string out =
      fmt::format("gpulint watch: '{}' exited with {} after {:.1f} s; {} samples every {} ms\n",
                  command_text(trace.command), trace.exit_code.value_or(-1), trace.duration_s(),
                  trace.t_ms.size(), trace.interval_ms);
  const size_t width = sparkline_width();
  for (size_t g = 0; g < trace.gpus.size(); ++g) {
    const system::GpuSeries& gpu = trace.gpus[g];
    const system::Diagnosis& d = diagnoses[g];
    double peak_mib = 0;
    for (double m : gpu.memory_used_mib) {
      if (!std::isnan(m)) peak_mib = std::max(peak_mib, m);
    }
    out += fmt::format("GPU {} ({}): peak memory {:.1f} of {:.1f} GiB\n", gpu.index, gpu.name,
                       peak_mib / kMibPerGib, gpu.memory_total_mib / kMibPerGib);
    out += fmt::format("  {}  0-{:.1f} s, utilisation 0-100%\n",
                       system::sparkline(gpu.utilization_percent, width), trace.duration_s());
    out += fmt::format("  {}: {}\n", system::shape_name(d.shape), d.summary);
    for (const system::IdleSegment& idle : d.idle) out += "  " + system::describe(idle) + "\n";
    if (!d.cause.empty()) out += fmt::format("  why: {}\n", d.cause);
    if (!d.rules.empty()) out += fmt::format("  look at: {}\n", rule_list(d.rules));
  }
  return out;
}

// The outputs' failures do not hide the command's own failure: its code wins when non-zero.
int finish(const WatchOptions& options, const system::Trace& trace,
           const std::vector<system::Diagnosis>& diagnoses, int child_code) {
  bool ok = true;
  if (!options.output.empty()) {
    ok = write_atomically(options.output, system::write_trace_json(trace)) && ok;
  }
  if (!options.plot.empty()) {
    ok = write_atomically(options.plot, system::svg_chart(trace, diagnoses)) && ok;
  }
  return ok || child_code != 0 ? child_code : kExitError;
}

int run_watch(const WatchOptions& options) {
  const std::vector<std::string>& command = options.command;
  if (command.empty()) {
    error("watch needs a command to run: gpulint watch [OPTIONS] -- CMD ARGS...");
    return kExitError;
  }

  std::string nvml_error;
  const std::unique_ptr<system::NvmlLibrary> nvml = system::NvmlLibrary::open(&nvml_error);
  std::vector<system::GpuSeries> series;
  if (nvml) {
    for (const system::GpuFacts& gpu : nvml->facts().gpus) {
      system::GpuSeries s;
      s.index = gpu.index;
      s.name = gpu.name;
      s.memory_total_mib = static_cast<double>(gpu.memory_total_bytes) / (1024.0 * 1024.0);
      series.push_back(std::move(s));
    }
    if (series.empty()) nvml_error = "the NVIDIA driver reports no GPU";
  }
  if (series.empty()) {
    warning(fmt::format(
        "nothing can be sampled ({}); running the command without a trace{}", nvml_error,
        options.output.empty() && options.plot.empty() ? ""
                                                       : ", so --output and --plot write nothing"));
    const system::ChildExit child = system::run_inheriting_stdio(command);
    if (!child.error.empty()) error(child.error);
    return child.code;
  }

  system::Sampler sampler(*nvml, std::move(series), std::chrono::milliseconds(options.interval_ms));
  sampler.start();
  const system::ChildExit child = system::run_inheriting_stdio(command);
  system::Trace trace = sampler.stop();
  if (!child.error.empty()) {
    error(child.error);
    return child.code;
  }
  trace.command = command;
  trace.exit_code = child.code;
  const std::vector<system::Diagnosis> diagnoses = system::diagnose(trace);
  // The report goes to stderr, as time(1)'s does: stdout belongs to the command.
  fmt::print(stderr, "{}", render_report(trace, diagnoses));
  return finish(options, trace, diagnoses, child.code);
}

}  // namespace

Subcommand add_watch(CLI::App& app) {
  auto options = std::make_shared<WatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "watch", "Run a command, sample GPU utilisation while it runs, and name what starves it");
  cmd->add_option("--interval-ms", options->interval_ms, "Milliseconds between samples")
      ->check(CLI::Range(10, 60000))
      ->capture_default_str();
  cmd->add_option("--output", options->output, "Write the sampled trace to this JSON file");
  cmd->add_option("--plot", options->plot, "Write a utilisation chart to this SVG file");
  cmd->add_option("command", options->command, "The command to run, with its arguments");
  // Everything from the command's name on is the command's, its own options included.
  cmd->positionals_at_end();
  cmd->footer(
      "The command's output passes through; the report goes to stderr when it ends.\n"
      "Exit code: the command's own (128+N when signal N killed it, 127 when it was not found),\n"
      "or 2 when the command succeeded but --output or --plot could not be written.\n"
      "Without an NVIDIA driver the command still runs and its code is returned.");
  return {cmd, [options] { return run_watch(*options); }};
}

}  // namespace gpulint

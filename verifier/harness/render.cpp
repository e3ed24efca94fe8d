#include "verifier/harness/render.h"

#include <algorithm>
#include <cstdio>

#include "rules/registry.h"
#include "verifier/harness/catalog.h"
#include "verifier/harness/costs.h"

namespace gpulint::verifier {
namespace {

std::string clocks_text(const Clocks& c) {
  if (c.sm_mhz < 0) return "clocks not readable";
  return "SM " + std::to_string(c.sm_mhz) + " MHz, memory " + std::to_string(c.mem_mhz) + " MHz";
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string lpad(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

}  // namespace

std::vector<RuleCost> rule_costs(const Report& report, const Params& params) {
  std::vector<RuleCost> out;
  for (const ExperimentInfo& info : experiment_catalog()) {
    const ExperimentResult* e = report.find(info.name);
    if (e == nullptr) continue;
    for (const std::string& code : rules_of_experiment(info.name)) {
      RuleCost rc;
      rc.code = code;
      rc.experiment = info.name;
      rc.name = find_rule(code)->info.name;
      if (const std::optional<Cost> cost = cost_for(code, report, params)) {
        rc.summary = cost->summary;
        rc.measured = true;
      } else {
        rc.summary = e->ok ? "not measured (a figure is missing)" : "experiment failed";
      }
      out.push_back(std::move(rc));
    }
  }
  return out;
}

std::string render_table(const Report& report, const std::vector<RuleCost>& costs) {
  const DeviceInfo& d = report.device;
  std::string out = "gpulint verify on " + describe_device(d) + "\n";
  out += "clocks at start: " + clocks_text(d.clocks_start);
  if (d.sm_clock_max_mhz > 0) {
    out += " (max SM " + std::to_string(d.sm_clock_max_mhz) + " MHz, memory " +
           std::to_string(d.mem_clock_max_mhz) + " MHz)";
  }
  out += "; CPU: " + std::to_string(d.cpu_threads) + " threads, GEMM through " + d.cpu_gemm + "\n";
  out += d.host.measured()
             ? "host time per call: PyTorch's, measured through " + d.host.detail + "\n"
             : "host time per call: raw CUDA only (" + d.host.detail + ")\n";

  size_t label_width = 0;
  for (const ExperimentResult& e : report.experiments) {
    for (const Measurement& m : e.measurements) label_width = std::max(label_width, m.label.size());
  }
  for (const ExperimentResult& e : report.experiments) {
    std::string rules;
    for (const std::string& r : rules_of_experiment(e.name))
      rules += (rules.empty() ? "" : " ") + r;
    char head[256];
    std::snprintf(head, sizeof head, "\n%s (%s): %.2f s", e.name.c_str(), rules.c_str(), e.wall_s);
    out += head;
    if (e.clocks_after.sm_mhz >= 0) out += ", after: " + clocks_text(e.clocks_after);
    if (e.host_load.other_cores >= 0) {
      char load[96];
      std::snprintf(load, sizeof load, "; other processes used %.1f CPU cores",
                    e.host_load.other_cores + e.host_load.steal_cores);
      out += load;
    }
    out += "\n";
    if (!e.ok) out += "  error: " + e.error + "\n";
    for (const Measurement& m : e.measurements) {
      out += "  " + pad(m.label, label_width) + "  " + lpad(format_figure(m.stats.median), 8) +
             " " + pad(m.unit, 8) + "  [" + format_figure(m.stats.p25) + " .. " +
             format_figure(m.stats.p75) + "] n=" + std::to_string(m.stats.samples) +
             (m.stable ? "" : " (median not settled)") + "\n";
    }
    for (const std::string& note : e.notes) out += "  note: " + note + "\n";
  }
  if (!costs.empty()) {
    out += "\ncosts:\n";
    size_t name_width = 0;
    for (const RuleCost& c : costs) name_width = std::max(name_width, c.name.size());
    for (const RuleCost& c : costs) {
      out += "  " + c.code + " " + pad(c.name, name_width) + "  " + c.summary + "\n";
    }
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, "\nsuite: %.1f s\n", report.wall_s);
  out += tail;
  return out;
}

}  // namespace gpulint::verifier

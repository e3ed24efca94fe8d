#include "verifier/harness/costs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rules/registry.h"
#include "verifier/harness/catalog.h"

namespace gpulint::verifier {
namespace {

// The batch size a small batch is compared against: large enough to fill an H100-class GPU with the
// loading experiment's layers, small enough to fit any training setup.
constexpr int64_t kReferenceBatch = 64;

int64_t round_up_8(int64_t v) { return (v + 7) / 8 * 8; }

}  // namespace

std::string format_figure(double value) {
  const double a = std::fabs(value);
  char buf[64];
  if (a >= 100 || a == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else if (a >= 10) {
    std::snprintf(buf, sizeof buf, "%.1f", value);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%.2f", value);
  } else {
    const int decimals = 2 - static_cast<int>(std::floor(std::log10(a)));
    std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, 9), value);
  }
  return buf;
}

FindingParams finding_params(const Diagnostic& d) {
  FindingParams out;
  for (const auto& [name, value] : d.parameters) {
    if (name == "batch_size" && value > 0) out.batch_size = value;
    if (name == "dimension" && value > 0) out.unaligned_dim = value;
    if (name == "random_fill") out.random_fill = value != 0;
  }
  return out;
}

std::optional<CostSpec> cost_spec(std::string_view code, const Params& p, const FindingParams& f) {
  const Rule* rule = find_rule(code);
  if (rule == nullptr || rule->measure.experiment.empty()) return std::nullopt;
  const int64_t batch = f.batch_size.value_or(1);
  const int64_t dim =
      f.unaligned_dim.value_or(p.unaligned_dims.empty() ? 4095 : p.unaligned_dims[0]);
  const bool random = f.random_fill.value_or(true);
  const std::pair<std::string_view, std::string> values[] = {
      {"profile", p.profile},
      {"kernels", std::to_string(p.kernels_per_step)},
      {"gemm", format_gemm(p.gemm)},
      {"cpu_gemm", format_gemm(p.cpu_gemm)},
      {"layer", format_shape(p.layer)},
      {"batch_shape", format_shape(p.batch_shape)},
      {"workers", std::to_string(p.workers)},
      {"alloc_buffers", std::to_string(p.alloc_buffers)},
      {"batch", std::to_string(batch)},
      {"reference_batch", std::to_string(kReferenceBatch)},
      {"dim", std::to_string(dim)},
      {"dim_aligned", std::to_string(round_up_8(dim))},
      {"fill", random ? "randn" : "a constant"},
      {"fill_key", random ? "" : "zeros_"},
  };
  auto fill_in = [&](std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      const size_t close = text[i] == '{' ? text.find('}', i) : std::string_view::npos;
      const auto value = std::find_if(std::begin(values), std::end(values), [&](const auto& v) {
        return close != std::string_view::npos && v.first == text.substr(i + 1, close - i - 1);
      });
      if (value == std::end(values)) {
        out.push_back(text[i]);
      } else {
        out += value->second;
        i = close;
      }
    }
    return out;
  };
  const Measure& m = rule->measure;
  return CostSpec{std::string(m.experiment), fill_in(m.bad), fill_in(m.good), fill_in(m.what)};
}

RuleSelection experiments_for_rules(const std::vector<std::string>& codes) {
  RuleSelection out;
  std::vector<bool> wanted(experiment_catalog().size(), false);
  for (const std::string& code : codes) {
    const Rule* rule = find_rule(code);
    const ExperimentInfo* e = rule ? find_experiment(rule->measure.experiment) : nullptr;
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

std::vector<std::string> rules_of_experiment(std::string_view experiment) {
  std::vector<std::string> out;
  for (const Rule* rule : all_rules()) {
    if (rule->measure.experiment == experiment) out.emplace_back(rule->info.code);
  }
  return out;
}

std::optional<Cost> cost_for(std::string_view code, const Report& report, const Params& params,
                             const FindingParams& finding) {
  const std::optional<CostSpec> spec = cost_spec(code, params, finding);
  if (!spec) return std::nullopt;
  const ExperimentResult* e = report.find(spec->experiment);
  if (e == nullptr || !e->ok) return std::nullopt;
  const Measurement* bad = e->find(spec->bad);
  const Measurement* good = e->find(spec->good);
  if (bad == nullptr || good == nullptr || bad->unit != good->unit) return std::nullopt;
  const double b = bad->stats.median, g = good->stats.median;
  Cost cost;
  cost.experiment = spec->experiment;
  cost.device = report.device.name;
  if (bad->higher_is_better) {
    if (!(b > 0)) return std::nullopt;
    cost.value = g / b;
    cost.unit = "x";
    cost.summary = (cost.value >= 1 ? "x" + format_figure(cost.value) + " slower ("
                                    : "x" + format_figure(1 / cost.value) + " faster (") +
                   format_figure(b) + " vs " + format_figure(g) + " " + bad->unit +
                   "): " + spec->what;
  } else {
    if (!(g > 0)) return std::nullopt;
    cost.value = b - g;
    cost.unit = bad->unit;
    cost.summary = (cost.value >= 0 ? "+" : "") + format_figure(cost.value) + " " + bad->unit +
                   " (x" + format_figure(b / g) + ": " + format_figure(b) + " vs " +
                   format_figure(g) + "): " + spec->what;
  }
  cost.summary += ", on " + report.device.name;
  return cost;
}

Params plan_for(const std::vector<Diagnostic>& diagnostics, Params base) {
  std::vector<std::string> codes;
  std::vector<int64_t> dims;
  for (const Diagnostic& d : diagnostics) {
    codes.push_back(d.code);
    const FindingParams f = finding_params(d);
    if (f.batch_size) base.batch_sizes.push_back(*f.batch_size);
    if (f.unaligned_dim) dims.push_back(*f.unaligned_dim);
  }
  if (!dims.empty()) base.unaligned_dims = dims;
  for (std::vector<int64_t>* v : {&base.batch_sizes, &base.unaligned_dims}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  base.experiments = experiments_for_rules(codes).experiments;
  return base;
}

size_t attach_costs(std::vector<Diagnostic>& diagnostics, const Report& report,
                    const Params& params) {
  size_t attached = 0;
  for (Diagnostic& d : diagnostics) {
    d.cost = cost_for(d.code, report, params, finding_params(d));
    if (d.cost) ++attached;
  }
  return attached;
}

}  // namespace gpulint::verifier

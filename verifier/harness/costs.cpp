#include "verifier/harness/costs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "verifier/harness/catalog.h"

namespace gpulint::verifier {
namespace {

// The batch size GL206 is compared against: large enough to fill an H100-class GPU with the
// loading experiment's layers, small enough to fit any training setup.
constexpr int64_t kReferenceBatch = 64;

int64_t round_up_8(int64_t v) { return (v + 7) / 8 * 8; }

std::string profile_phrase(const Params& p) {
  return "a " + p.profile + " step of " + std::to_string(p.kernels_per_step) + " kernels";
}

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
  std::smatch m;
  if (d.code == "GL206") {
    static const std::regex batch(R"(batch_size=(\d+))");
    if (std::regex_search(d.message, m, batch)) {
      out.batch_size = std::stoll(m[1].str());
    } else if (d.message.find("without `batch_size`") != std::string::npos) {
      out.batch_size = 1;  // DataLoader's default
    }
    if (out.batch_size && *out.batch_size <= 0) out.batch_size.reset();
  } else if (d.code == "GL303") {
    // "`torch.zeros(...)` is filled on the CPU": rand, randn, randint and randperm draw random
    // numbers on the host; the other factories write constants or ranges.
    if (d.message.find("`torch.") != std::string::npos) {
      out.random_fill = d.message.find("`torch.rand") != std::string::npos;
    }
  } else if (d.code == "GL405") {
    static const std::regex dim(R"(size (\d+) is not a multiple of 8)");
    if (std::regex_search(d.message, m, dim)) out.unaligned_dim = std::stoll(m[1].str());
    if (out.unaligned_dim && *out.unaligned_dim <= 0) out.unaligned_dim.reset();
  }
  return out;
}

std::optional<CostSpec> cost_spec(std::string_view code, const Params& p, const FindingParams& f) {
  const std::string prof = p.profile + ".";
  if (code == "GL101" || code == "GL105") {
    return CostSpec{"sync", prof + "readback", prof + "pipelined",
                    "a 4-byte device-to-host read every step, " + profile_phrase(p)};
  }
  if (code == "GL102") {
    return CostSpec{"sync", prof + "readback", prof + "pipelined",
                    "a blocking device-to-host copy every step, " + profile_phrase(p)};
  }
  if (code == "GL103") {
    return CostSpec{"sync", prof + "device_sync", prof + "pipelined",
                    "cudaDeviceSynchronize every step, " + profile_phrase(p)};
  }
  if (code == "GL104") {
    return CostSpec{"sync", prof + "print", prof + "pipelined",
                    "a value read back, formatted and written every step, " + profile_phrase(p)};
  }
  if (code == "GL106") {
    return CostSpec{"dynamic", "shape.readback_launch", "shape.fixed_launch",
                    "count, read back and launch by the count, vs a fixed-size launch"};
  }
  if (code == "GL107") {
    return CostSpec{"dynamic", "alloc.free_malloc", "alloc.reuse",
                    "cudaFree + cudaMalloc of " + std::to_string(p.alloc_buffers) +
                        " batch-sized buffers every step, vs reuse"};
  }
  if (code == "GL503") {
    return CostSpec{"dynamic", "weights.recreate", "weights.reuse",
                    "a " + format_shape(p.layer) +
                        " layer allocated, initialised on the host and uploaded every step"};
  }
  if (code == "GL201") {
    return CostSpec{"loading", "loader.inline", "loader.workers",
                    "preprocessing inline vs " + std::to_string(p.workers) + " producer threads"};
  }
  if (code == "GL206") {
    const int64_t b = f.batch_size.value_or(1);
    return CostSpec{
        "loading", "batch.b" + std::to_string(b), "batch.b" + std::to_string(kReferenceBatch),
        "samples/s at batch " + std::to_string(b) + " vs " + std::to_string(kReferenceBatch)};
  }
  if (code == "GL202") {
    return CostSpec{"transfer", "h2d.pageable", "h2d.pinned",
                    "a " + format_shape(p.batch_shape) + " fp32 batch copied from pageable memory"};
  }
  if (code == "GL204") {
    return CostSpec{"transfer", "host.pageable_async", "host.pinned_async",
                    "host blocked in a non_blocking copy from pageable memory"};
  }
  if (code == "GL205") {
    return CostSpec{"transfer", "host.pinned_sync", "host.pinned_async",
                    "host blocked in a blocking copy of a pinned batch"};
  }
  if (code == "GL301" || code == "GL302") {
    return CostSpec{"placement", "gemm.cpu", "gemm.gpu",
                    "a " + format_gemm(p.cpu_gemm) + " fp32 GEMM on the CPU instead of the GPU"};
  }
  if (code == "GL303") {
    if (!f.random_fill.value_or(true)) {
      return CostSpec{"placement", "fill.zeros_host_copy", "fill.zeros_device",
                      "a constant fill on the host and copied, vs filled on the device"};
    }
    return CostSpec{"placement", "fill.host_copy", "fill.device",
                    "randn filled on the host and copied, vs filled on the device"};
  }
  if (code == "GL401") {
    return CostSpec{"precision", "gemm.fp32", "gemm.bf16",
                    "a " + format_gemm(p.gemm) + " GEMM in FP32 instead of BF16"};
  }
  if (code == "GL403") {
    return CostSpec{"precision", "gemm.fp16", "gemm.bf16",
                    "BF16 (no GradScaler needed) against FP16, " + format_gemm(p.gemm)};
  }
  if (code == "GL404") {
    return CostSpec{"precision", "gemm.fp32", "gemm.tf32",
                    "a " + format_gemm(p.gemm) + " GEMM in full FP32 instead of TF32"};
  }
  if (code == "GL405") {
    const int64_t d =
        f.unaligned_dim.value_or(p.unaligned_dims.empty() ? 4095 : p.unaligned_dims[0]);
    return CostSpec{
        "precision", "gemm.bf16.k" + std::to_string(d),
        "gemm.bf16.k" + std::to_string(round_up_8(d)),
        "a BF16 GEMM with K=" + std::to_string(d) + " vs K=" + std::to_string(round_up_8(d))};
  }
  if (code == "GL501") {
    return CostSpec{"debug", prof + "sync_each", prof + "async",
                    "a sync after every kernel, " + profile_phrase(p)};
  }
  return std::nullopt;
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

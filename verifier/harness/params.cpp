#include "verifier/harness/params.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <map>

#include "verifier/harness/catalog.h"

namespace gpulint::verifier {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(sep, start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

int64_t parse_positive(std::string_view text, std::string_view what) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) {
    throw ParamError(std::string(what) + ": '" + std::string(text) + "' is not a positive integer");
  }
  return value;
}

double parse_positive_double(std::string_view text, std::string_view what) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(value > 0)) {
    throw ParamError(std::string(what) + ": '" + s + "' is not a positive number");
  }
  return value;
}

std::vector<int64_t> parse_list(std::string_view text, std::string_view what) {
  std::vector<int64_t> out;
  if (text.empty()) return out;
  for (std::string_view part : split(text, ',')) out.push_back(parse_positive(part, what));
  return out;
}

std::string join(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

bool Params::runs(std::string_view experiment) const {
  return experiments.empty() ||
         std::find(experiments.begin(), experiments.end(), experiment) != experiments.end();
}

int64_t Params::batch_bytes() const {
  int64_t n = 4;
  for (int64_t d : batch_shape) n *= d;
  return n;
}

std::vector<int64_t> parse_shape(std::string_view text) {
  std::vector<int64_t> shape;
  for (std::string_view part : split(text, 'x')) shape.push_back(parse_positive(part, "shape"));
  return shape;
}

std::string format_shape(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

GemmShape parse_gemm(std::string_view text) {
  const std::vector<int64_t> dims = parse_shape(text);
  if (dims.size() != 3) {
    throw ParamError("GEMM shape: '" + std::string(text) + "' is not MxNxK");
  }
  return {dims[0], dims[1], dims[2]};
}

std::string format_gemm(const GemmShape& s) { return format_shape({s.m, s.n, s.k}); }

std::vector<std::string> to_args(const Params& p) {
  std::string experiments;
  for (const std::string& e : p.experiments) experiments += (experiments.empty() ? "" : ",") + e;
  std::vector<std::string> args = {
      "--steps",
      std::to_string(p.steps),
      "--kernels-per-step",
      std::to_string(p.kernels_per_step),
      "--profile",
      p.profile,
      "--batch-shape",
      format_shape(p.batch_shape),
      "--gemm-shape",
      format_gemm(p.gemm),
      "--cpu-gemm-shape",
      format_gemm(p.cpu_gemm),
      "--unaligned-dims",
      join(p.unaligned_dims),
      "--loader-cpu-ms",
      number(p.loader_cpu_ms),
      "--loader-gpu-ms",
      number(p.loader_gpu_ms),
      "--workers",
      std::to_string(p.workers),
      "--layer",
      format_shape(p.layer),
      "--alloc-buffers",
      std::to_string(p.alloc_buffers),
      "--budget-s",
      number(p.budget_s),
      "--host-model",
      p.host_model,
      "--python",
      p.python,
  };
  if (!experiments.empty()) args.insert(args.end(), {"--experiments", experiments});
  if (!p.batch_sizes.empty()) args.insert(args.end(), {"--batch-sizes", join(p.batch_sizes)});
  if (!p.inject_error.empty()) args.insert(args.end(), {"--inject-error", p.inject_error});
  return args;
}

Params params_from_args(const std::vector<std::string>& args) {
  Params p;
  using Setter = std::function<void(std::string_view)>;
  const std::map<std::string_view, Setter> setters = {
      {"--experiments",
       [&](std::string_view v) {
         p.experiments.clear();
         for (std::string_view name : split(v, ',')) {
           if (find_experiment(name) == nullptr) {
             throw ParamError("no experiment named '" + std::string(name) + "'");
           }
           p.experiments.emplace_back(name);
         }
       }},
      {"--steps",
       [&](std::string_view v) { p.steps = static_cast<int>(parse_positive(v, "--steps")); }},
      {"--kernels-per-step",
       [&](std::string_view v) {
         p.kernels_per_step = static_cast<int>(parse_positive(v, "--kernels-per-step"));
       }},
      {"--profile",
       [&](std::string_view v) {
         if (v != "launch" && v != "balanced" && v != "compute") {
           throw ParamError("--profile: '" + std::string(v) +
                            "' is not launch, balanced or compute");
         }
         p.profile = v;
       }},
      {"--batch-shape", [&](std::string_view v) { p.batch_shape = parse_shape(v); }},
      {"--gemm-shape", [&](std::string_view v) { p.gemm = parse_gemm(v); }},
      {"--cpu-gemm-shape", [&](std::string_view v) { p.cpu_gemm = parse_gemm(v); }},
      {"--batch-sizes",
       [&](std::string_view v) { p.batch_sizes = parse_list(v, "--batch-sizes"); }},
      {"--unaligned-dims",
       [&](std::string_view v) { p.unaligned_dims = parse_list(v, "--unaligned-dims"); }},
      {"--loader-cpu-ms",
       [&](std::string_view v) { p.loader_cpu_ms = parse_positive_double(v, "--loader-cpu-ms"); }},
      {"--loader-gpu-ms",
       [&](std::string_view v) { p.loader_gpu_ms = parse_positive_double(v, "--loader-gpu-ms"); }},
      {"--workers",
       [&](std::string_view v) { p.workers = static_cast<int>(parse_positive(v, "--workers")); }},
      {"--layer",
       [&](std::string_view v) {
         p.layer = parse_shape(v);
         if (p.layer.size() != 2)
           throw ParamError("--layer: '" + std::string(v) + "' is not INxOUT");
       }},
      {"--alloc-buffers",
       [&](std::string_view v) {
         p.alloc_buffers = static_cast<int>(parse_positive(v, "--alloc-buffers"));
       }},
      {"--budget-s",
       [&](std::string_view v) { p.budget_s = parse_positive_double(v, "--budget-s"); }},
      {"--host-model",
       [&](std::string_view v) {
         if (v != "auto" && v != "cuda") {
           throw ParamError("--host-model: '" + std::string(v) + "' is not auto or cuda");
         }
         p.host_model = v;
       }},
      {"--python",
       [&](std::string_view v) {
         if (v.empty()) throw ParamError("--python needs a program");
         p.python = v;
       }},
      {"--inject-error", [&](std::string_view v) { p.inject_error = v; }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const auto it = setters.find(args[i]);
    if (it == setters.end()) throw ParamError("unknown option '" + args[i] + "'");
    if (i + 1 >= args.size()) throw ParamError(args[i] + " needs a value");
    it->second(args[++i]);
  }
  return p;
}

std::vector<std::pair<std::string, std::string>> describe(const Params& p) {
  return {
      {"steps", std::to_string(p.steps)},
      {"kernels_per_step", std::to_string(p.kernels_per_step)},
      {"profile", p.profile},
      {"batch_shape", format_shape(p.batch_shape)},
      {"gemm_shape", format_gemm(p.gemm)},
      {"cpu_gemm_shape", format_gemm(p.cpu_gemm)},
      {"unaligned_dims", join(p.unaligned_dims)},
      {"loader_cpu_ms", number(p.loader_cpu_ms)},
      {"loader_gpu_ms", number(p.loader_gpu_ms)},
      {"workers", std::to_string(p.workers)},
      {"layer", format_shape(p.layer)},
      {"alloc_buffers", std::to_string(p.alloc_buffers)},
      {"budget_s", number(p.budget_s)},
      {"host_model", p.host_model},
      {"python", p.python},
  };
}

}  // namespace gpulint::verifier

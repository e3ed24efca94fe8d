#include "doctor/torch_probe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "machine/process.h"

namespace gpulint::system {
namespace {

using Json = nlohmann::json;

template <typename T>
std::optional<T> optional_field(const Json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

// The last lines of a stream, enough to show why the interpreter failed.
std::string tail(const std::string& text, size_t max_chars) {
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  return trimmed.size() <= max_chars ? trimmed : "..." + trimmed.substr(trimmed.size() - max_chars);
}

}  // namespace

// Every attribute is read through g(), so a torch that lacks one (older or newer than this
// script) still reports the rest; is_available() runs first, as a user's script would.
const char* const kTorchProbeScript = R"PY(
import json, sys
r = {"python": sys.executable, "python_version": sys.version.split()[0]}
def g(f):
    try:
        return f()
    except Exception:
        return None
try:
    import torch
except Exception as e:
    r["torch"] = None
    r["import_error"] = "%s: %s" % (type(e).__name__, e)
else:
    r["torch"] = str(torch.__version__)
    r["cuda"] = torch.version.cuda
    r["cuda_available"] = bool(g(torch.cuda.is_available))
    r["arch_list"] = g(torch.cuda.get_arch_list) or []
    r["devices"] = []
    if r["cuda_available"]:
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            r["devices"].append({"name": p.name, "capability": [p.major, p.minor]})
    c = torch.backends.cudnn
    r["matmul_allow_tf32"] = g(lambda: bool(torch.backends.cuda.matmul.allow_tf32))
    r["cudnn_allow_tf32"] = g(lambda: bool(c.allow_tf32))
    r["float32_matmul_precision"] = g(torch.get_float32_matmul_precision)
    r["cudnn_enabled"] = g(lambda: bool(c.enabled))
    r["cudnn_benchmark"] = g(lambda: bool(c.benchmark))
    r["cudnn_version"] = g(lambda: c.version() if c.is_available() else None)
print(json.dumps(r))
)PY";

TorchFacts parse_torch_probe(std::string_view stdout_text) {
  TorchFacts facts;
  Json doc;
  size_t end = stdout_text.size();
  while (end > 0) {
    const size_t start = stdout_text.rfind('\n', end - 1);
    const size_t from = start == std::string_view::npos ? 0 : start + 1;
    const std::string_view line = stdout_text.substr(from, end - from);
    if (!line.empty() && line.front() == '{') {
      doc = Json::parse(line, nullptr, false);
      if (!doc.is_discarded() && doc.is_object()) break;
    }
    doc = Json();
    end = start == std::string_view::npos ? 0 : start;
  }
  if (!doc.is_object()) {
    facts.error = "the probe printed no JSON object";
    return facts;
  }
  facts.ran = true;
  facts.python_executable = doc.value("python", "");
  facts.python_version = doc.value("python_version", "");
  const std::optional<std::string> version = optional_field<std::string>(doc, "torch");
  if (!version) {
    facts.import_error = doc.value("import_error", "");
    return facts;
  }
  facts.torch_installed = true;
  facts.version = *version;
  facts.cuda_version = optional_field<std::string>(doc, "cuda");
  facts.cuda_available = optional_field<bool>(doc, "cuda_available").value_or(false);
  facts.arch_list = optional_field<std::vector<std::string>>(doc, "arch_list")
                        .value_or(std::vector<std::string>{});
  if (const auto it = doc.find("devices"); it != doc.end() && it->is_array()) {
    for (const Json& d : *it) {
      TorchDevice device;
      device.name = d.value("name", "");
      const auto cap = optional_field<std::vector<int>>(d, "capability");
      if (cap && cap->size() == 2) {
        device.capability_major = (*cap)[0];
        device.capability_minor = (*cap)[1];
      }
      facts.devices.push_back(std::move(device));
    }
  }
  facts.matmul_allow_tf32 = optional_field<bool>(doc, "matmul_allow_tf32");
  facts.cudnn_allow_tf32 = optional_field<bool>(doc, "cudnn_allow_tf32");
  facts.float32_matmul_precision =
      optional_field<std::string>(doc, "float32_matmul_precision").value_or("");
  facts.cudnn_enabled = optional_field<bool>(doc, "cudnn_enabled");
  facts.cudnn_benchmark = optional_field<bool>(doc, "cudnn_benchmark");
  facts.cudnn_version = optional_field<int>(doc, "cudnn_version");
  return facts;
}

TorchFacts run_torch_probe(const std::string& python, std::chrono::milliseconds limit) {
  const CapturedRun run = run_capturing({python, "-c", kTorchProbeScript}, limit);
  TorchFacts facts;
  if (!run.error.empty()) {
    facts.error = run.error;
  } else if (run.timed_out) {
    facts.error = fmt::format("'{}' did not finish within {} s", python, limit.count() / 1000);
  } else {
    facts = parse_torch_probe(run.out);
    if (!facts.ran) {
      facts.error = fmt::format("'{}' exited with {} and printed no probe result: {}", python,
                                run.code, tail(run.err, 400));
    }
  }
  return facts;
}

}  // namespace gpulint::system

#include "watch/trace_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace gpulint::system {
namespace {

using Json = nlohmann::ordered_json;

Json column(const std::vector<double>& values) {
  Json out = Json::array();
  for (double v : values) {
    if (std::isnan(v)) {
      out.push_back(nullptr);
    } else {
      out.push_back(std::llround(v));
    }
  }
  return out;
}

bool read_column(const Json& object, const char* key, size_t length, std::vector<double>* out,
                 std::string* error) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array() || it->size() != length) {
    *error = std::string("'") + key + "' must be an array as long as 't_ms'";
    return false;
  }
  out->clear();
  for (const Json& v : *it) {
    if (v.is_null()) {
      out->push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (v.is_number()) {
      out->push_back(v.get<double>());
    } else {
      *error = std::string("'") + key + "' holds a value that is neither a number nor null";
      return false;
    }
  }
  return true;
}

}  // namespace

std::string write_trace_json(const Trace& trace) {
  Json doc;
  doc["format"] = kTraceFormat;
  doc["version"] = kTraceFormatVersion;
  doc["interval_ms"] = trace.interval_ms;
  doc["command"] = trace.command;
  doc["exit_code"] = trace.exit_code ? Json(*trace.exit_code) : Json(nullptr);
  doc["t_ms"] = column(trace.t_ms);
  Json gpus = Json::array();
  for (const GpuSeries& gpu : trace.gpus) {
    gpus.push_back({{"index", gpu.index},
                    {"name", gpu.name},
                    {"memory_total_mib", std::llround(gpu.memory_total_mib)},
                    {"utilization_percent", column(gpu.utilization_percent)},
                    {"memory_used_mib", column(gpu.memory_used_mib)},
                    {"sm_clock_mhz", column(gpu.sm_clock_mhz)}});
  }
  doc["gpus"] = std::move(gpus);
  return doc.dump() + "\n";
}

std::optional<Trace> read_trace_json(std::string_view text, std::string* error) {
  const Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "not a JSON object";
    return std::nullopt;
  }
  if (doc.value("format", "") != kTraceFormat || doc.value("version", 0) != kTraceFormatVersion) {
    *error = "not a gpulint watch trace of format version 1";
    return std::nullopt;
  }
  try {
    Trace trace;
    trace.interval_ms = doc.at("interval_ms").get<int>();
    trace.command = doc.at("command").get<std::vector<std::string>>();
    if (const Json& code = doc.at("exit_code"); !code.is_null()) trace.exit_code = code.get<int>();
    trace.t_ms = doc.at("t_ms").get<std::vector<double>>();
    for (const Json& g : doc.at("gpus")) {
      GpuSeries gpu;
      gpu.index = g.at("index").get<unsigned>();
      gpu.name = g.at("name").get<std::string>();
      gpu.memory_total_mib = g.at("memory_total_mib").get<double>();
      const size_t n = trace.t_ms.size();
      if (!read_column(g, "utilization_percent", n, &gpu.utilization_percent, error) ||
          !read_column(g, "memory_used_mib", n, &gpu.memory_used_mib, error) ||
          !read_column(g, "sm_clock_mhz", n, &gpu.sm_clock_mhz, error)) {
        return std::nullopt;
      }
      trace.gpus.push_back(std::move(gpu));
    }
    return trace;
  } catch (const nlohmann::json::exception& e) {
    *error = e.what();
    return std::nullopt;
  }
}

}  // namespace gpulint::system

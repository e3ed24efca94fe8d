#include "verifier/harness/report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace gpulint::verifier {
namespace {

using Json = nlohmann::ordered_json;

Json pairs_json(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json out = Json::object();
  for (const auto& [k, v] : pairs) out[k] = v;
  return out;
}

std::vector<std::pair<std::string, std::string>> pairs_from(const Json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : j.items()) out.emplace_back(k, v.get<std::string>());
  return out;
}

Json clocks_json(const Clocks& c) { return {{"sm_mhz", c.sm_mhz}, {"mem_mhz", c.mem_mhz}}; }
Clocks clocks_from(const Json& j) { return {j.value("sm_mhz", -1), j.value("mem_mhz", -1)}; }

Json measurement_json(const Measurement& m) {
  return {{"id", m.id},
          {"label", m.label},
          {"unit", m.unit},
          {"higher_is_better", m.higher_is_better},
          {"median", m.stats.median},
          {"p25", m.stats.p25},
          {"p75", m.stats.p75},
          {"min", m.stats.min},
          {"max", m.stats.max},
          {"samples", m.stats.samples},
          {"stable", m.stable}};
}

Measurement measurement_from(const Json& j) {
  Measurement m;
  m.id = j.at("id").get<std::string>();
  m.label = j.value("label", "");
  m.unit = j.at("unit").get<std::string>();
  m.higher_is_better = j.value("higher_is_better", false);
  m.stats.median = j.at("median").get<double>();
  m.stats.p25 = j.value("p25", m.stats.median);
  m.stats.p75 = j.value("p75", m.stats.median);
  m.stats.min = j.value("min", m.stats.median);
  m.stats.max = j.value("max", m.stats.median);
  m.stats.samples = j.value("samples", size_t{0});
  m.stable = j.value("stable", false);
  return m;
}

Json experiment_json(const ExperimentResult& e) {
  Json measurements = Json::array();
  for (const Measurement& m : e.measurements) measurements.push_back(measurement_json(m));
  Json out = {{"name", e.name}, {"status", e.ok ? "ok" : "error"}};
  if (!e.ok) out["error"] = e.error;
  out["wall_s"] = e.wall_s;
  out["parameters"] = pairs_json(e.parameters);
  out["measurements"] = std::move(measurements);
  out["notes"] = e.notes;
  out["clocks_after"] = clocks_json(e.clocks_after);
  out["host_load"] = {{"other_cores", e.host_load.other_cores},
                      {"steal_cores", e.host_load.steal_cores}};
  return out;
}

ExperimentResult experiment_from(const Json& j) {
  ExperimentResult e;
  e.name = j.at("name").get<std::string>();
  e.ok = j.at("status").get<std::string>() == "ok";
  e.error = j.value("error", "");
  e.wall_s = j.value("wall_s", 0.0);
  if (j.contains("parameters")) e.parameters = pairs_from(j["parameters"]);
  for (const Json& m : j.value("measurements", Json::array())) {
    e.measurements.push_back(measurement_from(m));
  }
  e.notes = j.value("notes", std::vector<std::string>{});
  if (j.contains("clocks_after")) e.clocks_after = clocks_from(j["clocks_after"]);
  if (j.contains("host_load")) {
    e.host_load = {j["host_load"].value("other_cores", -1.0),
                   j["host_load"].value("steal_cores", -1.0)};
  }
  return e;
}

Json host_model_json(const HostModel& m) {
  Json out = {{"source", m.source}, {"detail", m.detail}};
  if (m.measured()) {
    out["per_call_us"] = {{"launch", m.launch_us},           {"item", m.item_us},
                          {"synchronize", m.synchronize_us}, {"print", m.print_us},
                          {"module", m.module_us},           {"alloc", m.alloc_us}};
    if (!m.cpu_gemm_ms.empty()) out["cpu_gemm_ms"] = m.cpu_gemm_ms;
    if (!m.cpu_randn_ms.empty()) out["cpu_randn_ms"] = m.cpu_randn_ms;
  }
  return out;
}

HostModel host_model_from(const Json& j) {
  HostModel m;
  m.source = j.value("source", "cuda");
  m.detail = j.value("detail", "");
  if (j.contains("per_call_us")) {
    const Json& f = j["per_call_us"];
    m.launch_us = f.value("launch", 0.0);
    m.item_us = f.value("item", 0.0);
    m.synchronize_us = f.value("synchronize", 0.0);
    m.print_us = f.value("print", 0.0);
    m.module_us = f.value("module", 0.0);
    m.alloc_us = f.value("alloc", 0.0);
  }
  if (j.contains("cpu_gemm_ms")) m.cpu_gemm_ms = j["cpu_gemm_ms"].get<std::vector<double>>();
  if (j.contains("cpu_randn_ms")) m.cpu_randn_ms = j["cpu_randn_ms"].get<std::vector<double>>();
  return m;
}

Json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"sm_count", d.sm_count},
          {"memory_gib", d.memory_gib},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"driver_release", d.driver_release},
          {"sm_clock_max_mhz", d.sm_clock_max_mhz},
          {"mem_clock_max_mhz", d.mem_clock_max_mhz},
          {"clocks_start", clocks_json(d.clocks_start)},
          {"cpu_threads", d.cpu_threads},
          {"cpu_gemm", d.cpu_gemm},
          {"host_model", host_model_json(d.host)}};
}

DeviceInfo device_from(const Json& j) {
  DeviceInfo d;
  d.name = j.value("name", "");
  const std::string cc = j.value("compute_capability", "0.0");
  if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2) {
    throw ReportError("compute_capability '" + cc + "' is not MAJOR.MINOR");
  }
  d.sm_count = j.value("sm_count", 0);
  d.memory_gib = j.value("memory_gib", 0.0);
  d.driver_version = j.value("driver_version", "");
  d.runtime_version = j.value("runtime_version", "");
  d.driver_release = j.value("driver_release", "");
  d.sm_clock_max_mhz = j.value("sm_clock_max_mhz", -1);
  d.mem_clock_max_mhz = j.value("mem_clock_max_mhz", -1);
  if (j.contains("clocks_start")) d.clocks_start = clocks_from(j["clocks_start"]);
  d.cpu_threads = j.value("cpu_threads", 0);
  d.cpu_gemm = j.value("cpu_gemm", "");
  if (j.contains("host_model")) d.host = host_model_from(j["host_model"]);
  return d;
}

}  // namespace

const Measurement* ExperimentResult::find(std::string_view id) const {
  for (const Measurement& m : measurements) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

const ExperimentResult* Report::find(std::string_view experiment) const {
  for (const ExperimentResult& e : experiments) {
    if (e.name == experiment) return &e;
  }
  return nullptr;
}

std::string to_json(const Report& r) {
  Json out = {{"schema", r.schema}};
  if (r.unavailable) {
    out["unavailable"] = {{"reason", r.unavailable->reason}, {"message", r.unavailable->message}};
    return out.dump(2) + "\n";
  }
  out["device"] = device_json(r.device);
  out["parameters"] = pairs_json(r.parameters);
  Json experiments = Json::array();
  for (const ExperimentResult& e : r.experiments) experiments.push_back(experiment_json(e));
  out["experiments"] = std::move(experiments);
  out["wall_s"] = r.wall_s;
  return out.dump(2) + "\n";
}

Report report_from_json(std::string_view text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw ReportError(std::string("the verifier's output is not JSON: ") + e.what());
  }
  try {
    Report r;
    r.schema = j.at("schema").get<std::string>();
    if (r.schema != kSchema) {
      throw ReportError("the verifier wrote schema '" + r.schema + "', expected '" +
                        std::string(kSchema) + "'");
    }
    if (j.contains("unavailable")) {
      r.unavailable = Unavailable{j["unavailable"].at("reason").get<std::string>(),
                                  j["unavailable"].at("message").get<std::string>()};
      return r;
    }
    r.device = device_from(j.at("device"));
    if (j.contains("parameters")) r.parameters = pairs_from(j["parameters"]);
    for (const Json& e : j.at("experiments")) r.experiments.push_back(experiment_from(e));
    r.wall_s = j.value("wall_s", 0.0);
    return r;
  } catch (const Json::exception& e) {
    throw ReportError(std::string("the verifier's output does not fit its schema: ") + e.what());
  }
}

std::string describe_device(const DeviceInfo& d) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.1f GiB), driver %s (CUDA %s), runtime %s",
                d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.memory_gib,
                d.driver_release.empty() ? "?" : d.driver_release.c_str(), d.driver_version.c_str(),
                d.runtime_version.c_str());
  return buf;
}

}  // namespace gpulint::verifier

#include "analyzer/report/report.h"

#include "analyzer/report/observed_json.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace gpulint {
namespace {

using Json = nlohmann::ordered_json;

// Every location is written the same way: 1-based, end exclusive, as LSP and Ruff write them.
void put_location(Json& out, const Location& location) {
  out["path"] = location.path;
  out["line"] = location.start.line;
  out["column"] = location.start.column;
  out["end_line"] = location.end.line;
  out["end_column"] = location.end.column;
}

Json fix_json(const Fix& fix) {
  Json edits = Json::array();
  for (const Edit& edit : fix.edits) {
    edits.push_back({{"start_byte", edit.span.begin},
                     {"end_byte", edit.span.end},
                     {"replacement", edit.replacement}});
  }
  return {{"message", fix.message},
          {"applicability", fix.applicability == Applicability::Safe ? "safe" : "unsafe"},
          {"edits", std::move(edits)}};
}

Json diagnostic_json(const Diagnostic& d) {
  Json out;
  out["code"] = d.code;
  out["name"] = d.name;
  out["severity"] = d.severity == Severity::Error ? "error" : "warning";
  out["message"] = d.message;
  out["help"] = d.help;
  put_location(out, d.location);
  Json related = Json::array();
  for (const Related& r : d.related) {
    Json entry;
    put_location(entry, r.location);
    entry["message"] = r.message;
    related.push_back(std::move(entry));
  }
  out["related"] = std::move(related);
  if (d.fix) out["fix"] = fix_json(*d.fix);
  if (!d.parameters.empty()) {
    Json parameters = Json::object();
    for (const auto& [name, value] : d.parameters) parameters[name] = value;
    out["parameters"] = std::move(parameters);
  }
  if (d.cost) {
    out["cost"] = {{"experiment", d.cost->experiment},
                   {"value", d.cost->value},
                   {"unit", d.cost->unit},
                   {"summary", d.cost->summary},
                   {"device", d.cost->device}};
  }
  if (d.observed) out["observed"] = observed_json(*d.observed);
  return out;
}

}  // namespace

std::string render_json(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const std::string& version) {
  Json list = Json::array();
  std::map<std::string, size_t> by_code;  // sorted, so the output does not depend on order seen
  for (const Diagnostic& d : diagnostics) {
    list.push_back(diagnostic_json(d));
    ++by_code[d.code];
  }
  Json counts = Json::object();
  for (const auto& [code, count] : by_code) counts[code] = count;

  Json out;
  out["tool"] = "gpulint";
  out["version"] = version;
  out["diagnostics"] = std::move(list);
  out["summary"] = {{"files_checked", summary.files_checked},
                    {"findings", diagnostics.size()},
                    {"by_code", std::move(counts)},
                    {"file_errors", summary.file_errors}};
  // Paths and messages can carry bytes that are not UTF-8 (file names on Linux are bytes);
  // replace them rather than throw, so a report is always produced.
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpulint

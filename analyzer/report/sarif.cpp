#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyzer/report/observed_json.h"
#include "analyzer/report/report.h"

namespace gpulint {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemata/sarif-schema-2.1.0.json";
constexpr std::string_view kRootId = "SRCROOT";

// RFC 3986: every byte outside the unreserved set and the path separator is percent-encoded,
// so spaces, '%', '#', ':' and non-UTF-8 bytes in file names all give a valid URI.
std::string percent_encode(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                       (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                       c == '~' || c == '/';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string file_uri(const std::filesystem::path& absolute) {
  return "file://" + percent_encode(absolute.lexically_normal().generic_string());
}

std::string directory_uri(const std::string& directory) {
  std::string uri = file_uri(directory);
  if (!uri.ends_with('/')) uri += '/';
  return uri;
}

// Paths under the source root become relative to %SRCROOT%, which is what code scanning
// resolves against the repository; anything else keeps an absolute file URI.
Json artifact_location(const std::string& path, const std::string& source_root) {
  std::filesystem::path root = std::filesystem::path(source_root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "/src/" and "/src" are one root
  std::filesystem::path absolute(path);
  if (absolute.is_relative()) absolute = root / absolute;
  absolute = absolute.lexically_normal();
  const std::filesystem::path relative = absolute.lexically_relative(root);
  const bool inside = !relative.empty() && *relative.begin() != ".." && relative != ".";
  if (!inside) return {{"uri", file_uri(absolute)}};
  return {{"uri", percent_encode(relative.generic_string())}, {"uriBaseId", kRootId}};
}

Json region(Position start, Position end) {
  return {{"startLine", start.line},
          {"startColumn", start.column},
          {"endLine", end.line},
          {"endColumn", end.column}};
}

Json physical_location(const Location& location, const std::string& source_root) {
  return {{"artifactLocation", artifact_location(location.path, source_root)},
          {"region", region(location.start, location.end)}};
}

std::string_view level(Severity severity) {
  return severity == Severity::Error ? "error" : "warning";
}

std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::VeryHigh:
      return "very-high";
    case Precision::High:
      return "high";
    case Precision::Medium:
      return "medium";
    case Precision::Low:
      return "low";
  }
  return "high";
}

// The body of the docs' "What it does" section as one paragraph, for fullDescription.
std::string what_it_does(const RuleInfo& rule) {
  constexpr std::string_view kHeading = "## What it does\n";
  const size_t at = rule.docs.find(kHeading);
  if (at == std::string_view::npos) return std::string(rule.summary);
  std::string_view body = rule.docs.substr(at + kHeading.size());
  body = body.substr(0, body.find("\n## "));
  std::string out;
  for (const char c : body) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

Json rule_descriptor(const RuleInfo& rule) {
  const std::string docs(rule.docs);
  const std::string fix(rule.help);
  Json tags = Json::array({"performance", "gpu", std::string(rule.family)});
  return {
      {"id", rule.code},
      {"name", rule.name},
      {"shortDescription", {{"text", rule.summary}}},
      {"fullDescription", {{"text", what_it_does(rule)}}},
      {"help",
       {{"text", docs + "\nFix: " + fix + "\n"}, {"markdown", docs + "\n**Fix:** " + fix + "\n"}}},
      {"defaultConfiguration", {{"level", level(rule.severity)}, {"enabled", rule.default_on}}},
      {"properties", {{"tags", std::move(tags)}, {"precision", precision_name(rule.precision)}}}};
}

// FNV-1a, 64 bits: the same on every platform and every run, unlike std::hash.
uint64_t fnv1a(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Code scanning matches an alert across commits by this value, so it depends on what the line
// says, not where it is: the line without its whitespace (re-indenting moves nothing), and
// the count of equal lines with the same rule before it in the file, so two identical lines
// stay two alerts.
class LineHasher {
 public:
  std::string operator()(const Diagnostic& d) {
    std::string normalised;
    for (const char c : d.source_line) {
      if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') normalised += c;
    }
    const uint64_t hash = fnv1a(normalised);
    const size_t occurrence = ++seen_[{d.location.path, d.code, hash}];
    return fmt_hex(hash) + ":" + std::to_string(occurrence);
  }

 private:
  static std::string fmt_hex(uint64_t value) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, value >>= 4) out[static_cast<size_t>(i)] = kHex[value & 0xF];
    return out;
  }

  std::map<std::tuple<std::string, std::string, uint64_t>, size_t> seen_;
};

Json fix_json(const Fix& fix, const Location& location, const std::string& source_root) {
  Json replacements = Json::array();
  for (const Edit& edit : fix.edits) {
    replacements.push_back({{"deletedRegion", region(edit.start, edit.end)},
                            {"insertedContent", {{"text", edit.replacement}}}});
  }
  return {{"description", {{"text", fix.message}}},
          {"artifactChanges",
           Json::array({{{"artifactLocation", artifact_location(location.path, source_root)},
                         {"replacements", std::move(replacements)}}})},
          {"properties",
           {{"applicability", fix.applicability == Applicability::Safe ? "safe" : "unsafe"}}}};
}

Json result_json(const Diagnostic& d, std::optional<size_t> rule_index,
                 const std::string& fingerprint, const std::string& source_root) {
  Json out;
  out["ruleId"] = d.code;
  if (rule_index) out["ruleIndex"] = *rule_index;
  out["level"] = level(d.severity);
  out["message"] = {{"text", d.message}};
  out["locations"] =
      Json::array({{{"physicalLocation", physical_location(d.location, source_root)}}});
  if (!d.related.empty()) {
    Json related = Json::array();
    for (size_t i = 0; i < d.related.size(); ++i) {
      related.push_back(
          {{"id", i + 1},
           {"physicalLocation", physical_location(d.related[i].location, source_root)},
           {"message", {{"text", d.related[i].message}}}});
    }
    out["relatedLocations"] = std::move(related);
  }
  out["partialFingerprints"] = {{"primaryLocationLineHash", fingerprint}};
  if (d.fix) out["fixes"] = Json::array({fix_json(*d.fix, d.location, source_root)});
  if (d.cost) {
    out["properties"]["cost"] = {{"experiment", d.cost->experiment},
                                 {"value", d.cost->value},
                                 {"unit", d.cost->unit},
                                 {"summary", d.cost->summary},
                                 {"device", d.cost->device}};
  }
  if (d.observed) out["properties"]["observed"] = observed_json(*d.observed);
  return out;
}

// The run's own story: whether every file could be checked, and what got in the way. A
// parse error still yields results, so it is a notification, not a failure.
Json invocation(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                const std::vector<RuleInfo>& rules,
                const std::map<std::string_view, size_t>& rule_index,
                const std::string& source_root) {
  Json notifications = Json::array();
  for (const Diagnostic& d : diagnostics) {
    const auto it = rule_index.find(d.code);
    if (it == rule_index.end() || rules[it->second].kind != RuleKind::Syntax) continue;
    Json n;
    n["level"] = level(d.severity);
    n["message"] = {{"text", d.location.path + ": " + d.message}};
    n["locations"] =
        Json::array({{{"physicalLocation", physical_location(d.location, source_root)}}});
    n["associatedRule"] = {{"id", d.code}, {"index", it->second}};
    notifications.push_back(std::move(n));
  }
  for (const std::string& e : summary.file_errors) {
    notifications.push_back({{"level", "error"}, {"message", {{"text", e}}}});
  }
  Json out;
  out["executionSuccessful"] = summary.file_errors.empty();
  out["toolExecutionNotifications"] = std::move(notifications);
  return out;
}

}  // namespace

std::string render_sarif(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                         const std::vector<RuleInfo>& rules, const SarifOptions& options) {
  Json descriptors = Json::array();
  std::map<std::string_view, size_t> rule_index;
  for (size_t i = 0; i < rules.size(); ++i) {
    descriptors.push_back(rule_descriptor(rules[i]));
    rule_index.emplace(rules[i].code, i);
  }

  Json results = Json::array();
  LineHasher fingerprint;
  for (const Diagnostic& d : diagnostics) {
    const auto it = rule_index.find(d.code);
    std::optional<size_t> index;
    if (it != rule_index.end()) index = it->second;
    results.push_back(result_json(d, index, fingerprint(d), options.source_root));
  }

  Json driver;
  driver["name"] = "gpulint";
  driver["semanticVersion"] = options.version;
  driver["informationUri"] = options.information_uri;
  driver["rules"] = std::move(descriptors);

  Json run;
  run["tool"] = {{"driver", std::move(driver)}};
  run["automationDetails"] = {{"id", options.automation_id}};
  run["originalUriBaseIds"] = {{kRootId, {{"uri", directory_uri(options.source_root)}}}};
  // Columns count code points (SourceFile), not UTF-16 units, the SARIF default.
  run["columnKind"] = "unicodeCodePoints";
  run["invocations"] =
      Json::array({invocation(diagnostics, summary, rules, rule_index, options.source_root)});
  run["results"] = std::move(results);

  Json out;
  out["$schema"] = kSchema;
  out["version"] = "2.1.0";
  out["runs"] = Json::array({std::move(run)});
  // As in the JSON report: bytes that are not UTF-8 are replaced, so a report is always made.
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpulint

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/report/report.h"

namespace gpulint {
namespace {

// @actions/core's escapeData: the runner splits commands on newlines and decodes '%'.
std::string escape_data(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// @actions/core's escapeProperty: properties are also split on ',' and ':'.
std::string escape_property(std::string_view text) {
  std::string out;
  for (const char c : escape_data(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

std::string annotation(const Diagnostic& d) {
  const Location& at = d.location;
  std::string message = d.message;
  if (!d.help.empty()) message += "\nhelp: " + d.help;
  if (d.observed) message += "\nobserved: " + d.observed->summary;
  for (const Related& related : d.related) {
    message +=
        fmt::format("\nnote: {}:{}:{}: {}", related.location.path, related.location.start.line,
                    related.location.start.column, related.message);
  }
  return fmt::format("::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
                     d.severity == Severity::Error ? "error" : "warning", escape_property(at.path),
                     at.start.line, at.start.column, at.end.line, at.end.column,
                     escape_property(fmt::format("{} [{}]", d.code, d.name)), escape_data(message));
}

}  // namespace

std::string render_github(const std::vector<Diagnostic>& diagnostics,
                          const ReportSummary& summary) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += annotation(d);
  // A file that could not be checked has no line to annotate, but must not pass unseen.
  for (const std::string& e : summary.file_errors) {
    out += fmt::format("::error title=gpulint::{}\n", escape_data(e));
  }
  return out;
}

}  // namespace gpulint

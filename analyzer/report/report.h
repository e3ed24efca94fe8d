#pragma once

// Reporters: pure functions from a sorted diagnostic list to the bytes of one output format.

#include <string>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/rule.h"

namespace gpulint {

struct ReportSummary {
  size_t files_checked = 0;
  std::vector<std::string> file_errors;  // "path: message"
  size_t fixed = 0;                      // fixes applied (`--fix`) before these findings
};

struct TextOptions {
  bool color = false;
  bool summary = true;  // the closing count lines (`--quiet` leaves them out)
};

// Ruff's full format: `path:line:col: CODE [name] message`, the source line with carets under
// the span, `help:` with the fix, then a summary line.
std::string render_text(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const TextOptions& options);

// Ruff's concise format: `path:line:col: CODE message`, one line each, then the summary line.
std::string render_concise(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                           const TextOptions& options);

// `--statistics`: one line per rule, most findings first: the count, the code, the name and how
// many carry a fix.
std::string render_statistics(const std::vector<Diagnostic>& diagnostics);

// {"tool", "version", "diagnostics": [...], "summary": {...}}
std::string render_json(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const std::string& version);

struct SarifOptions {
  std::string version;          // tool.driver.semanticVersion
  std::string information_uri;  // tool.driver.informationUri
  // The absolute directory that %SRCROOT% names (the working directory, normally the
  // repository root in CI); paths under it are written relative to it.
  std::string source_root;
  // runAutomationDetails.id: code scanning's category is what comes before the last '/'.
  std::string automation_id = "gpulint/";
};

// SARIF 2.1.0 as GitHub code scanning ingests it: one run, every rule in `rules` as a
// reportingDescriptor (results point into it by ruleIndex), line-hash fingerprints, fixes,
// and an invocation whose notifications carry GL000 and the file errors.
std::string render_sarif(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                         const std::vector<RuleInfo>& rules, const SarifOptions& options);

// GitHub Actions workflow commands (`::warning file=...,line=...::message`), escaped as
// @actions/core escapes them, so each finding becomes an annotation on the pull request.
std::string render_github(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary);

}  // namespace gpulint

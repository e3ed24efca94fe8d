#pragma once

// Reporters: pure functions from a sorted diagnostic list to the bytes of one output format.

#include <string>
#include <vector>

#include "analyzer/core/diagnostic.h"

namespace gpulint {

struct ReportSummary {
  size_t files_checked = 0;
  std::vector<std::string> file_errors;  // "path: message"
};

struct TextOptions {
  bool color = false;
};

// Ruff's full format: `path:line:col: CODE [name] message`, the source line with carets under
// the span, `help:` with the fix, then a summary line.
std::string render_text(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const TextOptions& options);

// {"tool", "version", "diagnostics": [...], "summary": {...}}
std::string render_json(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const std::string& version);

}  // namespace gpulint

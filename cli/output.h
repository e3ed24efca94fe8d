#pragma once

// The command line's ways out: messages on stderr and reports on stdout or into a file.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/rule.h"
#include "analyzer/report/report.h"

namespace gpulint {

// Exit codes are part of the contract (ARCHITECTURE.md).
constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;
constexpr int kExitNoGpu = 3;

void error(std::string_view message);
void warning(std::string_view message);
void note(std::string_view message);
// `--quiet`: warnings and notes are not printed; errors still are.
void set_quiet(bool quiet);

// Writes the whole report to stdout; names the cause on stderr when it cannot.
bool write_stdout(std::string_view bytes);

// Writes a report file. A regular file (or a new one) is written through a temporary file in
// its directory and renamed into place, so a reader (a CI step, an editor) never sees a
// half-written report; its mode is kept, and a symlink to it is followed, not replaced. A
// device, FIFO or `-` (stdout) is written through. Names the cause on stderr when it cannot.
bool write_atomically(const std::string& path, std::string_view bytes);

// For SARIF reports: every rule's metadata, and the working directory the paths are under.
std::vector<RuleInfo> rule_infos();
std::string source_root();

// Findings as `verify` and `profile` print them: "json", "sarif", "github", or text without
// colour for anything else.
std::string render_findings(std::string_view format, const std::vector<Diagnostic>& diagnostics,
                            const ReportSummary& summary);

}  // namespace gpulint

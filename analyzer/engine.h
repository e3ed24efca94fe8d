#pragma once

// The engine: files in, sorted diagnostics out. Knows the front ends, never a concrete rule.

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/file_reading.h"
#include "analyzer/core/rule.h"
#include "analyzer/core/rule_set.h"
#include "analyzer/core/source_file.h"
#include "analyzer/file_outcome.h"
#include "analyzer/result_cache.h"

namespace gpulint {

struct LintOptions {
  std::vector<const Rule*> rules;  // the enabled rules
  unsigned jobs = 0;               // 0: one per core
  // Each file's own rules and options (config files, per-file-ignores); called from the
  // worker threads. Unset, or returning nullptr: `rules` with default options.
  std::function<const RuleSet*(const std::string& path)> rule_set_for;
  ResultCache* cache = nullptr;  // results of earlier runs, reused where nothing changed
  uint64_t max_file_size = kDefaultMaxFileSize;  // larger files are skipped, with a note
  // Texts linted in place of what their paths hold on disk (standard input, an editor's unsaved
  // buffer), by path as it appears in the list linted.
  std::map<std::string, std::string> texts;
};

struct LintResult {
  std::vector<Diagnostic> diagnostics;  // sorted by diagnostic_less
  std::vector<FileError> errors;        // files that could not be analysed, sorted by path
  std::vector<FileError> skipped;       // files over the size limit, sorted by path
  size_t files_checked = 0;
};

// What gpulint analyses of a file's bytes: UTF-16, binary and invalid UTF-8 are refused (`error`
// says why, for the report), and a Python file that declares another encoding (PEP 263) is
// decoded to UTF-8 (`re_encoded`: its fixes would address bytes the file does not hold).
struct AdmittedText {
  std::string bytes;
  bool re_encoded = false;
  std::string error;
};
AdmittedText admit_text(const std::string& path, std::string bytes);

// Lints one in-memory file. Suppression comments are honoured.
std::vector<Diagnostic> lint_source(const SourceFile& file, const std::vector<const Rule*>& rules);
std::vector<Diagnostic> lint_source(const SourceFile& file, const RuleSet& rules);

// Files are linted a batch at a time: each batch's Python files are parsed one after another,
// then analysed one after another, so that the parser's tables and the analysis's code each stay
// in the caches through their run of files instead of evicting each other at every file. Side
// by side, pass by pass on one core (bench/ab/ab.sh --passes): 7.1-7.5% less time than file by
// file on the fixture corpus, 2-5% on the real-code evaluation's larger files; a batch of 256
// KiB did no better. A batch is full at kBatchFiles files or kBatchBytes of source, which
// bounds the trees held at once (about 30 bytes a source byte) to a few megabytes beyond the
// largest file's.
inline constexpr size_t kBatchFiles = 32;
inline constexpr size_t kBatchBytes = 64 * 1024;
inline bool batch_full(size_t files, size_t bytes) {
  return files >= kBatchFiles || bytes >= kBatchBytes;
}
// One batch, with no other files to link against: what lint_source gives for each file.
std::vector<std::vector<Diagnostic>> lint_sources(std::span<const SourceFile> files,
                                                  const RuleSet& rules);

// Reads and lints every file, in parallel; the result does not depend on `jobs`.
LintResult lint_files(const std::vector<std::string>& paths, const LintOptions& options);

}  // namespace gpulint

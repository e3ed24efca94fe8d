#pragma once

// `--fix`, `--unsafe-fixes`, `--diff`, `--fix-only`: fixes applied round by round to the texts
// of a run, as Ruff applies them, and what they change.

#include <map>
#include <string>
#include <vector>

#include "analyzer/engine.h"

namespace gpulint {

struct FixRun {
  std::map<std::string, std::string> before, after;  // the files the fixes changed
  size_t applied = 0;                                // fixes applied to them
  std::vector<std::string> refused;  // files left as they were: the fixed text would not parse
  LintResult remaining;              // the findings of the texts as fixed
};

// Applies the fixes of `first` (the findings of `files` linted with `lint`), lints the fixed
// texts again and applies what comes back, until nothing more applies (at most ten rounds).
// Nothing is written: the fixed texts are in the result.
FixRun fix_files(const std::vector<std::string>& files, LintOptions lint, LintResult first,
                 bool unsafe);

}  // namespace gpulint

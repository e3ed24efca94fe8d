#pragma once

// Fixes applied round by round to the texts of a run, as Ruff applies them, and what they
// change: `--fix`, `--unsafe-fixes`, `--diff`, `--fix-only`, and the language server's fix all.

#include <map>
#include <span>
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
// `rules`: every rule gpulint has, whose syntax rules judge a fixed text.
FixRun fix_files(const std::vector<std::string>& files, LintOptions lint, LintResult first,
                 bool unsafe, std::span<const Rule* const> rules);

}  // namespace gpulint

#include "analyzer/fixes/fix_rounds.h"

#include <algorithm>

#include "analyzer/core/file_reading.h"
#include "analyzer/core/rule_set.h"
#include "analyzer/fixes/apply.h"

namespace gpulint {
namespace {

// A fix that applies another fix's edits would loop; ten rounds end any such cycle.
constexpr int kMaxRounds = 10;

// The syntax errors gpulint finds in `text` (GL000), whatever the run selects.
size_t syntax_errors(const std::string& path, const std::string& text, const RuleSet& syntax_only) {
  return lint_source(SourceFile(path, text), syntax_only).size();
}

}  // namespace

FixRun fix_files(const std::vector<std::string>& files, LintOptions lint, LintResult first,
                 bool unsafe, std::span<const Rule* const> rules) {
  RuleSet syntax_only;
  for (const Rule* rule : rules) {
    if (rule->info.kind == RuleKind::Syntax) syntax_only.rules.push_back(rule);
  }
  FixRun run;
  run.remaining = std::move(first);
  std::map<std::string, size_t> applied;  // by file
  for (int round = 0; round < kMaxRounds; ++round) {
    std::map<std::string, std::vector<const Diagnostic*>> by_file;
    for (const Diagnostic& d : run.remaining.diagnostics) {
      if (d.fix && (unsafe || d.fix->applicability == Applicability::Safe))
        by_file[d.location.path].push_back(&d);
    }
    bool changed = false;
    for (const auto& [path, diagnostics] : by_file) {
      auto text = lint.texts.find(path);
      if (text == lint.texts.end()) {
        FileRead read = read_regular_file(path, lint.max_file_size);
        if (!read.error.empty()) continue;
        text = lint.texts.emplace(path, std::move(read.bytes)).first;
      }
      run.before.try_emplace(path, text->second);
      FixedText fixed = apply_fixes(text->second, diagnostics, unsafe);
      if (fixed.applied == 0 || fixed.text == text->second) continue;
      text->second = std::move(fixed.text);
      applied[path] += fixed.applied;
      changed = true;
    }
    if (!changed) break;
    run.remaining = lint_files(files, lint);
  }
  // A fix must not break the file: one that would add a syntax error is left out, file by file.
  bool reverted = false;
  for (const auto& [path, before] : run.before) {
    const std::string& after = lint.texts[path];
    if (after == before) continue;
    if (syntax_errors(path, after, syntax_only) > syntax_errors(path, before, syntax_only)) {
      run.refused.push_back(path);
      lint.texts[path] = before;
      reverted = true;
      continue;
    }
    run.after[path] = after;
    run.applied += applied[path];
  }
  if (reverted) run.remaining = lint_files(files, lint);
  for (auto it = run.before.begin(); it != run.before.end();) {
    it = run.after.count(it->first) ? std::next(it) : run.before.erase(it);
  }
  return run;
}

}  // namespace gpulint

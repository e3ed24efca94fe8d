#include "analyzer/engine.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include <filesystem>
#include "analyzer/core/language.h"
#include "analyzer/core/suppressions.h"
#include "analyzer/deps/front_end.h"
#include "analyzer/python/front_end.h"

namespace gpulint {
namespace {

constexpr size_t kMaxShownLine = 4096;

Location locate(const SourceFile& file, Span span) {
  return {file.path(), span, file.position(span.begin), file.position(span.end)};
}

std::optional<Fix> locate_edits(const SourceFile& file, std::optional<Fix> fix) {
  if (fix) {
    for (Edit& edit : fix->edits) {
      edit.start = file.position(edit.span.begin);
      edit.end = file.position(edit.span.end);
    }
  }
  return fix;
}

class CollectingSink : public Sink {
 public:
  void report(Finding finding) override { findings.push_back(std::move(finding)); }
  std::vector<Finding> findings;
};

struct FileOutcome {
  std::vector<Diagnostic> diagnostics;
  std::optional<FileError> error;
};

FileOutcome lint_path(const std::string& path, const RuleSet& rules) {
  FileOutcome outcome;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    outcome.error = FileError{path, "cannot be read"};
    return outcome;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    outcome.error = FileError{path, "read error"};
    return outcome;
  }
  std::string bytes = std::move(buffer).str();
  if (bytes.size() > std::numeric_limits<uint32_t>::max() / 2) {
    outcome.error = FileError{path, "larger than 2 GiB; skipped"};
    return outcome;
  }
  if (looks_binary(bytes)) {
    outcome.error = FileError{path, "looks like a binary file (it holds NUL bytes); skipped"};
    return outcome;
  }
  if (int64_t bad = first_invalid_utf8(bytes); bad >= 0) {
    SourceFile file(path, std::move(bytes));
    Position at = file.position(static_cast<uint32_t>(bad));
    outcome.error = FileError{path, "not valid UTF-8 (line " + std::to_string(at.line) +
                                        ", column " + std::to_string(at.column) + "); skipped"};
    return outcome;
  }
  outcome.diagnostics = lint_source(SourceFile(path, std::move(bytes)), rules);
  return outcome;
}

// GL001 needs every other rule's findings, so the engine, not the rule, reports it.
void report_unused_suppressions(const SourceFile& file, const std::vector<const Rule*>& rules,
                                const Suppressions& suppressions, std::vector<Diagnostic>& out) {
  auto gl001 = std::find_if(rules.begin(), rules.end(),
                            [](const Rule* r) { return r->info.code == "GL001"; });
  if (gl001 == rules.end()) return;
  auto enabled = [&](const std::string& code) {
    return std::any_of(rules.begin(), rules.end(),
                       [&](const Rule* r) { return r->info.code.starts_with(code); });
  };
  for (Span span : suppressions.unused(enabled)) {
    Diagnostic d;
    d.code = (*gl001)->info.code;
    d.name = (*gl001)->info.name;
    d.severity = (*gl001)->info.severity;
    d.message = "suppression comment suppresses nothing";
    d.help = (*gl001)->info.help;
    d.location = locate(file, span);
    d.source_line = file.line_text(d.location.start.line);
    d.fix = locate_edits(file,
                         Fix{"remove the suppression comment", Applicability::Safe, {{span, ""}}});
    out.push_back(std::move(d));
  }
}

}  // namespace

std::vector<Diagnostic> lint_source(const SourceFile& file, const std::vector<const Rule*>& rules) {
  return lint_source(file, RuleSet{rules, {}, {}});
}

std::vector<Diagnostic> lint_source(const SourceFile& file, const RuleSet& rule_set) {
  const std::vector<const Rule*>& rules = rule_set.rules;
  const std::string filename = std::filesystem::path(file.path()).filename().string();
  StepModel model = is_dependency_file(filename) ? deps::build_model(file.text())
                                                 : python::build_model(file.text());
  Suppressions suppressions = Suppressions::parse(file, model.comments);
  std::vector<Diagnostic> out;
  for (const Rule* rule : rules) {
    CollectingSink sink;
    RuleOptions options = rule_set.options;
    options.explicitly_selected =
        std::find(rule_set.explicitly_selected.begin(), rule_set.explicitly_selected.end(),
                  rule->info.code) != rule_set.explicitly_selected.end();
    rule->check(RuleInput{model, file.text(), options}, sink);
    for (Finding& f : sink.findings) {
      Location location = locate(file, f.span);
      if (suppressions.suppressed(rule->info.code, location.start.line)) continue;
      Diagnostic d;
      d.code = rule->info.code;
      d.name = rule->info.name;
      d.severity = rule->info.severity;
      d.message = std::move(f.message);
      d.help = rule->info.help;
      // A generated or minified line is not worth copying into every finding on it.
      std::string_view line = file.line_text(location.start.line);
      if (line.size() <= kMaxShownLine) d.source_line = line;
      d.location = std::move(location);
      for (auto& [span, message] : f.related)
        d.related.push_back({locate(file, span), std::move(message)});
      d.fix = locate_edits(file, std::move(f.fix));
      out.push_back(std::move(d));
    }
  }
  report_unused_suppressions(file, rules, suppressions, out);
  std::sort(out.begin(), out.end(), diagnostic_less);
  return out;
}

LintResult lint_files(const std::vector<std::string>& paths, const LintOptions& options) {
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, paths.size()));
  std::vector<FileOutcome> outcomes(paths.size());
  const RuleSet defaults{options.rules, {}, {}};
  auto rule_set_of = [&](const std::string& path) -> const RuleSet& {
    const RuleSet* own = options.rule_set_for ? options.rule_set_for(path) : nullptr;
    return own != nullptr ? *own : defaults;
  };
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++)
      outcomes[i] = lint_path(paths[i], rule_set_of(paths[i]));
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();

  LintResult result;
  result.files_checked = paths.size();
  for (FileOutcome& o : outcomes) {
    if (o.error) {
      result.errors.push_back(std::move(*o.error));
      --result.files_checked;
    }
    std::move(o.diagnostics.begin(), o.diagnostics.end(), std::back_inserter(result.diagnostics));
  }
  std::sort(result.diagnostics.begin(), result.diagnostics.end(), diagnostic_less);
  std::sort(result.errors.begin(), result.errors.end(),
            [](const FileError& a, const FileError& b) { return a.path < b.path; });
  return result;
}

}  // namespace gpulint

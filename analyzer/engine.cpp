#include "analyzer/engine.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <map>
#include <set>

#include "analyzer/core/file_reading.h"
#include "analyzer/core/language.h"
#include "analyzer/core/module_index.h"
#include "analyzer/core/suppressions.h"
#include "analyzer/cpp/front_end.h"
#include "analyzer/dependency_files/front_end.h"
#include "analyzer/python/front_end.h"

namespace gpulint {
namespace {

constexpr size_t kMaxShownLine = 4096;
// A further finding of the same rule in the same helper, shown under the first.
constexpr const char* kSameHelper = "the same in this helper here";

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

Links links_of(const SourceFile& file, const StepModel& model) {
  Links links;
  links.cuda = model.cuda_context();
  links.wanted_constants = model.imported_constants;
  links.constants = model.constants;
  for (const ImportedCall& call : model.imported_calls) {
    StepContext context = model.step_context(call.scope);
    if (!context.per_step()) continue;
    ExternalCaller caller;
    caller.function = call.symbol;
    caller.call_site = locate(file, call.span);
    if (context.external) {
      caller.via = context.external->via;
      caller.via.push_back(context.external->call_site);
    }
    for (Span span : context.via) caller.via.push_back(locate(file, span));
    caller.training = context.external    ? context.external->training
                      : context.loop >= 0 ? model.loops[context.loop].kind == LoopKind::Training
                                          : context.training_hook;
    caller.interval_guarded = context.interval_guarded;
    caller.every_step = context.every_step;
    caller.regions = context.regions;
    caller.scalar_arguments = call.scalar_arguments;
    links.calls.push_back({call.module, std::move(caller)});
  }
  for (const ImportedCall& call : model.probe_calls)
    links.probes.push_back({call.module, call.symbol, call.span.begin});
  links.argument_flows = model.argument_flows;
  links.handed_arguments = model.handed_arguments;
  links.training_functions = model.training_functions;
  links.device_functions = model.device_functions;
  links.device_calls = model.device_calls;
  links.unwrapping_functions = model.unwrapping_functions;
  links.collate_calls = model.collate_calls;
  links.host_functions = model.host_functions;
  links.host_calls = model.host_calls;
  links.placed_functions = model.placed_functions;
  links.model_calls = model.model_calls;
  if (model.has_training_loop()) {
    for (const ImportedLoader& use : model.imported_loaders) {
      const LoopKind kind = model.loops[use.loop].kind;
      if (kind == LoopKind::Training || kind == LoopKind::Evaluation)
        links.loader_uses.push_back({use.module, use.symbol});
    }
    std::set<std::pair<std::string_view, int32_t>> seen;
    for (const IteratedParameter& p : model.iterated_parameters) {
      const LoopKind kind = model.loops[p.loop].kind;
      if (kind != LoopKind::Training && kind != LoopKind::Evaluation) continue;
      if (!seen.emplace(p.callable, p.position).second) continue;
      links.loader_parameters.push_back({p.callable, p.position, p.name});
    }
  }
  return links;
}

StepModel build_model(const SourceFile& file, const Inbound& inbound,
                      const FlatTree* parsed = nullptr);
std::vector<Diagnostic> lint_model(const SourceFile& file, const StepModel& model,
                                   const RuleSet& rule_set);

// Everything about a file's rule set that its result depends on, for the cache key.
std::string settings_key(const RuleSet& rules) {
  std::string key;
  for (const Rule* rule : rules.rules) key.append(rule->info.code).push_back(',');
  key.push_back('|');
  for (const std::string& code : rules.explicitly_selected) key.append(code).push_back(',');
  key.append("|batch=").append(std::to_string(rules.options.small_batch_threshold));
  key.append(rules.options.test_code ? "|tests" : "|");
  return key;
}

std::string inbound_key(const Inbound& inbound) {
  std::string key = inbound.cuda ? "cuda|" : "|";
  auto add = [&](const Location& l) {
    key.append(l.path).append(":").append(std::to_string(l.span.begin)).push_back(';');
  };
  for (const ExternalCaller& c : inbound.callers) {
    key.append(c.function).push_back('@');
    add(c.call_site);
    for (const Location& l : c.via) add(l);
    key.append(std::to_string(c.training * 1 + c.interval_guarded * 2 + c.every_step * 4 +
                              c.scalar_arguments * 8 + c.regions * 16));
    key.push_back('|');
  }
  for (const std::string& f : inbound.loader_functions) key.append(f).push_back(',');
  key.push_back('|');
  for (const HandedParameter& p : inbound.handed_parameters) {
    key.append(p.function).append(":").append(std::to_string(p.position));
    key.append(p.what == Handed::Model ? ":model" : ":loader");
    key.append(":").append(p.keyword).push_back(',');
  }
  key.push_back('|');
  for (uint32_t at : inbound.training_calls) key.append(std::to_string(at)).push_back(',');
  key.push_back('|');
  for (const std::string& f : inbound.device_functions) key.append(f).push_back(',');
  key.push_back('|');
  for (const std::string& f : inbound.unwrapping_functions) key.append(f).push_back(',');
  key.push_back('|');
  for (const std::string& f : inbound.host_functions) key.append(f).push_back(',');
  key.push_back('|');
  for (const std::string& f : inbound.placed_functions) key.append(f).push_back(',');
  key.push_back('|');
  for (const auto& [name, value] : inbound.constants)
    key.append(name).append("=").append(std::to_string(value)).push_back(',');
  return key;
}

}  // namespace

AdmittedText admit_text(const std::string& path, std::string bytes) {
  AdmittedText out;
  if (std::string_view utf16 = utf16_kind(bytes); !utf16.empty()) {
    out.error = std::string(utf16) + "; gpulint reads UTF-8 (re-encode it); skipped";
    return out;
  }
  if (looks_binary(bytes)) {
    out.error = "looks like a binary file (it holds NUL bytes); skipped";
    return out;
  }
  // PEP 263: a Python file in another encoding says so on its first or second line.
  if (!language_of(filename_of(path)) || language_of(filename_of(path)) == Language::Python) {
    if (const std::string coding = declared_coding(bytes); !coding.empty()) {
      const std::string original = bytes;
      if (std::string problem = decode_to_utf8(bytes, coding); !problem.empty()) {
        out.error = problem + "; skipped";
        return out;
      }
      out.re_encoded = bytes != original;
    }
  }
  if (int64_t bad = first_invalid_utf8(bytes); bad >= 0) {
    SourceFile file(path, std::move(bytes));
    Position at = file.position(static_cast<uint32_t>(bad));
    out.error = "not valid UTF-8 (line " + std::to_string(at.line) + ", column " +
                std::to_string(at.column) + "); skipped";
    return out;
  }
  out.bytes = std::move(bytes);
  return out;
}

namespace {

// A file read and admitted, waiting for its analysis; or done already, when it could not be read
// or admitted or its result was in the cache (then `file` is empty and `outcome` is the result).
struct PendingFile {
  size_t index = 0;  // into the run's paths
  FileOutcome outcome;
  std::optional<SourceFile> file;
  bool re_encoded = false;
  std::string key;  // the cache's
  std::unique_ptr<FlatTree> parsed;
};

// `text`, when given, is linted in place of what `path` holds on disk.
PendingFile admit_path(const std::string& path, const std::string* text, const RuleSet& rules,
                       const Inbound& inbound, ResultCache* cache, uint64_t max_file_size) {
  PendingFile pending;
  // Spans are 32-bit, and half of that keeps every end offset in range.
  max_file_size = std::min<uint64_t>(max_file_size, std::numeric_limits<uint32_t>::max() / 2);
  FileRead read;
  if (text == nullptr) {
    read = read_regular_file(path, max_file_size);
  } else if (text->size() > max_file_size) {
    read.error = "over the " + describe_size(max_file_size) + " limit (--max-file-size); skipped";
    read.too_large = true;
  } else {
    read.bytes = *text;
  }
  if (!read.error.empty()) {
    pending.outcome.error = FileError{path, std::move(read.error), read.too_large};
    return pending;
  }
  AdmittedText admitted = admit_text(path, std::move(read.bytes));
  if (!admitted.error.empty()) {
    pending.outcome.error = FileError{path, std::move(admitted.error)};
    return pending;
  }
  pending.re_encoded = admitted.re_encoded;
  if (cache != nullptr) {
    pending.key = cache->key(path, settings_key(rules), inbound_key(inbound), admitted.bytes);
    if (std::optional<FileOutcome> cached = cache->find(pending.key)) {
      pending.outcome = std::move(*cached);
      return pending;
    }
  }
  pending.file.emplace(path, std::move(admitted.bytes));
  return pending;
}

FileOutcome lint_pending(PendingFile& pending, const RuleSet& rules, const Inbound& inbound,
                         ResultCache* cache) {
  if (!pending.file) return std::move(pending.outcome);
  FileOutcome outcome;
  const SourceFile& file = *pending.file;
  const StepModel model = build_model(file, inbound, pending.parsed.get());
  pending.parsed.reset();
  outcome.diagnostics = lint_model(file, model, rules);
  // Fixes address the UTF-8 text; in a file of another encoding its bytes lie elsewhere.
  if (pending.re_encoded) {
    for (Diagnostic& d : outcome.diagnostics) d.fix.reset();
  }
  outcome.links = links_of(file, model);
  if (cache != nullptr) cache->store(pending.key, outcome);
  return outcome;
}

// A finding of a rule the engine reports itself (the suppression rules), at `span`.
Diagnostic engine_diagnostic(const Rule& rule, const SourceFile& file, Span span,
                             std::string message) {
  Diagnostic d;
  d.code = rule.info.code;
  d.name = rule.info.name;
  d.severity = rule.info.severity;
  d.message = std::move(message);
  d.help = rule.info.help;
  d.location = locate(file, span);
  d.source_line = file.line_text(d.location.start.line);
  return d;
}

// The suppressions rule (GL001) needs every other rule's findings, so the engine, not the rule,
// reports it.
void report_unused_suppressions(const SourceFile& file, const std::vector<const Rule*>& rules,
                                const Suppressions& suppressions, std::vector<Diagnostic>& out) {
  auto gl001 = std::find_if(rules.begin(), rules.end(),
                            [](const Rule* r) { return r->info.kind == RuleKind::Suppressions; });
  if (gl001 == rules.end()) return;
  auto enabled = [&](const std::string& code) {
    return std::any_of(rules.begin(), rules.end(),
                       [&](const Rule* r) { return r->info.code.starts_with(code); });
  };
  for (Span span : suppressions.unused(enabled)) {
    Diagnostic d = engine_diagnostic(**gl001, file, span, "suppression comment suppresses nothing");
    d.fix = locate_edits(file,
                         Fix{"remove the suppression comment", Applicability::Safe, {{span, ""}}});
    out.push_back(std::move(d));
  }
}

// GL002: a code in a suppression comment that names no rule (`GL999`, a typo, another tool's
// code in `gpulint: ignore[...]`) suppresses nothing and says nothing; judged against every
// rule gpulint has, enabled or not.
void report_unknown_suppression_codes(const SourceFile& file, const RuleSet& rule_set,
                                      const Suppressions& suppressions,
                                      std::vector<Diagnostic>& out) {
  const std::vector<const Rule*>& rules = rule_set.rules;
  auto gl002 = std::find_if(rules.begin(), rules.end(), [](const Rule* r) {
    return r->info.kind == RuleKind::SuppressionCodes;
  });
  if (gl002 == rules.end() || rule_set.known.empty()) return;
  auto known = [&](const std::string& code) {
    return std::any_of(rule_set.known.begin(), rule_set.known.end(),
                       [&](const Rule* r) { return r->info.code.starts_with(code); });
  };
  for (const auto& [span, code] : suppressions.unknown_codes(known)) {
    out.push_back(engine_diagnostic(
        **gl002, file, span, "suppression comment names `" + code + "`, which is no gpulint rule"));
  }
}

// Unit tests and their fixtures: `tests/`, `test_*.py`, `*_test.py`, `conftest.py`.
bool is_test_path(std::string_view path) {
  if (path.starts_with("tests/") || path.find("/tests/") != std::string_view::npos) return true;
  const std::string_view name = filename_of(path);
  if (!name.ends_with(".py")) return false;  // C++ programs named test.cpp evaluate models
  return name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py";
}

// Python files are parsed ahead of their analysis; the other kinds parse as they analyse.
std::unique_ptr<FlatTree> parse_ahead(const SourceFile& file) {
  const std::string_view filename = filename_of(file.path());
  if (is_dependency_file(filename) || language_of(filename) == Language::Cpp) return nullptr;
  return python::parse(file.text());
}

// `parsed`: the file's parse_ahead, when it was parsed ahead.
StepModel build_model(const SourceFile& file, const Inbound& inbound, const FlatTree* parsed) {
  const std::string_view filename = filename_of(file.path());
  if (is_dependency_file(filename)) return deps::build_model(file.text());
  StepModel model = language_of(filename) == Language::Cpp
                        ? cpp::build_model_for_file(file.path(), file.text())
                    : parsed != nullptr ? python::build_model(file.text(), *parsed, inbound)
                                        : python::build_model(file.text(), inbound);
  model.test_code = is_test_path(file.path());
  return model;
}

std::vector<Diagnostic> lint_model(const SourceFile& file, const StepModel& model,
                                   const RuleSet& rule_set) {
  const std::vector<const Rule*>& rules = rule_set.rules;
  Suppressions suppressions = Suppressions::parse(file, model.comments);
  std::vector<Diagnostic> out;
  for (const Rule* rule : rules) {
    CollectingSink sink;
    RuleOptions options = rule_set.options;
    options.explicitly_selected =
        std::find(rule_set.explicitly_selected.begin(), rule_set.explicitly_selected.end(),
                  rule->info.code) != rule_set.explicitly_selected.end();
    rule->check(RuleInput{model, options}, sink);
    // Findings in helpers are grouped from the first in the file (most rules have none).
    std::unordered_map<std::string, size_t> first_in_helper;  // helper key -> its diagnostic
    if (std::any_of(sink.findings.begin(), sink.findings.end(),
                    [](const Finding& f) { return !f.helper.empty(); })) {
      std::stable_sort(
          sink.findings.begin(), sink.findings.end(),
          [](const Finding& a, const Finding& b) { return a.span.begin < b.span.begin; });
    }
    for (Finding& f : sink.findings) {
      Location location = locate(file, f.span);
      if (suppressions.suppressed(rule->info.code, location.start.line)) continue;
      if (!f.helper.empty()) {
        const auto [first, added] = first_in_helper.try_emplace(f.helper, out.size());
        if (!added) {
          out[first->second].related.push_back({std::move(location), kSameHelper});
          continue;
        }
      }
      Diagnostic d;
      d.code = rule->info.code;
      d.name = rule->info.name;
      d.severity = rule->info.severity;
      d.message = std::move(f.message);
      d.help = model.language == Language::Cpp ? rule->info.help_cpp : rule->info.help;
      // A generated or minified line is not worth copying into every finding on it.
      std::string_view line = file.line_text(location.start.line);
      if (line.size() <= kMaxShownLine) d.source_line = line;
      d.location = std::move(location);
      for (auto& [span, message] : f.related)
        d.related.push_back({locate(file, span), std::move(message)});
      std::move(f.related_elsewhere.begin(), f.related_elsewhere.end(),
                std::back_inserter(d.related));
      d.fix = locate_edits(file, std::move(f.fix));
      d.parameters = std::move(f.parameters);
      out.push_back(std::move(d));
    }
  }
  report_unused_suppressions(file, rules, suppressions, out);
  report_unknown_suppression_codes(file, rule_set, suppressions, out);
  std::sort(out.begin(), out.end(), diagnostic_less);
  return out;
}

// The C++ files of the run that the cache does not answer, which Clang will parse; announced
// first, files that share a torch preamble build one PCH of it (analyzer/cpp/resolver.h).
template <typename RuleSetOf>
void plan_cpp_files(const std::vector<std::string>& paths, RuleSetOf&& rule_set_of,
                    ResultCache* cache, uint64_t max_file_size) {
  std::vector<std::string> parsed;
  for (const std::string& path : paths) {
    if (language_of(filename_of(path)) != Language::Cpp) continue;
    if (cache != nullptr) {
      const FileRead read = read_regular_file(path, max_file_size);
      if (!read.error.empty()) continue;  // admit_path says why
      const std::string key =
          cache->key(path, settings_key(rule_set_of(path)), inbound_key({}), read.bytes);
      if (cache->find(key)) continue;
    }
    parsed.push_back(path);
  }
  cpp::plan_clang_run(parsed);
}

// Cross-module analysis: each file's links name functions of other files that its step loops
// reach; those files are analysed again knowing it, until nothing new is learnt (a helper of a
// helper takes one more round). Only the files that learn something are parsed again, so a
// run of unrelated files costs one pass. Inbound facts are sorted, so the result does not
// depend on the order files finished in.
template <typename LintSome>
void link_modules(const std::vector<std::string>& paths, std::vector<FileOutcome>& outcomes,
                  std::vector<Inbound>& inbound, LintSome&& lint_some) {
  constexpr int kMaxRounds = 8;
  ModuleIndex index(paths);
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<std::map<std::string, ExternalCaller>> callers(paths.size());
    std::vector<std::set<std::string>> loaders(paths.size());
    std::vector<std::set<HandedParameter>> handed(paths.size());
    std::vector<uint8_t> cuda(paths.size(), 0);
    std::vector<std::map<std::string, int64_t>> constants(paths.size());
    std::vector<std::set<uint32_t>> training_calls(paths.size());
    std::vector<std::set<std::string>> device_functions(paths.size());
    std::vector<std::set<std::string>> unwrapping_functions(paths.size());
    std::vector<std::set<std::string>> host_functions(paths.size());
    std::vector<std::set<std::string>> placed_functions(paths.size());
    auto offers = [](const std::vector<std::string>& sorted, const std::string& name) {
      return std::binary_search(sorted.begin(), sorted.end(), name);
    };
    // A file's calls of imported functions, answered by what the defining files offer: the
    // callees, as spelt in the calling file, that the other file lists.
    auto answer = [&](size_t from, const std::vector<ImportedConstant>& calls,
                      std::vector<std::string> Links::*offered, std::set<std::string>& into) {
      for (const ImportedConstant& call : calls) {
        const int32_t to = index.resolve(paths[from], call.module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        if (offers(outcomes[to].links.*offered, call.symbol)) into.insert(call.local);
      }
    };
    for (size_t from = 0; from < paths.size(); ++from) {
      for (const Links::Call& call : outcomes[from].links.calls) {
        const int32_t to = index.resolve(paths[from], call.module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        const Location& at = call.caller.call_site;
        std::string key =
            call.caller.function + '\0' + at.path + '\0' + std::to_string(at.span.begin);
        callers[to].emplace(std::move(key), call.caller);
        cuda[to] |= outcomes[from].links.cuda;
        if (offers(outcomes[to].links.training_functions, call.caller.function))
          training_calls[from].insert(at.span.begin);
      }
      for (const Links::Probe& probe : outcomes[from].links.probes) {
        const int32_t to = index.resolve(paths[from], probe.module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        if (offers(outcomes[to].links.training_functions, probe.function))
          training_calls[from].insert(probe.at);
      }
      const Links& links = outcomes[from].links;
      answer(from, links.device_calls, &Links::device_functions, device_functions[from]);
      answer(from, links.collate_calls, &Links::unwrapping_functions, unwrapping_functions[from]);
      answer(from, links.host_calls, &Links::host_functions, host_functions[from]);
      answer(from, links.model_calls, &Links::placed_functions, placed_functions[from]);
      for (const ImportedConstant& wanted : outcomes[from].links.wanted_constants) {
        const int32_t to = index.resolve(paths[from], wanted.module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        const auto& exported = outcomes[to].links.constants;
        auto it = std::lower_bound(exported.begin(), exported.end(), wanted.symbol,
                                   [](const auto& c, const std::string& s) { return c.first < s; });
        if (it != exported.end() && it->first == wanted.symbol)
          constants[from].emplace(wanted.local, it->second);
      }
      // `build_loaders()`'s result handed to a function that iterates that parameter in a step
      // loop: build_loaders' loaders feed the loop, and run where the loop's data runs.
      for (const ArgumentFlow& flow : outcomes[from].links.argument_flows) {
        const int32_t to = index.resolve(paths[from], flow.callee_module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        const auto& params = outcomes[to].links.loader_parameters;
        const bool iterated = std::any_of(params.begin(), params.end(), [&](const auto& p) {
          return p.function == flow.callee &&
                 (flow.position >= 0 ? p.position == flow.position : p.name == flow.keyword);
        });
        if (!iterated) continue;
        const int32_t source = index.resolve(paths[from], flow.source_module);
        if (source < 0 || static_cast<size_t>(source) == from) continue;
        loaders[source].insert(flow.source);
        cuda[source] |= outcomes[from].links.cuda || outcomes[to].links.cuda;
      }
      // `gen_samples(model, test_loader)`: the callee's loop over that parameter iterates a
      // loader, the model it calls is the caller's, and its work runs where the caller's does.
      for (const HandedArgument& argument : outcomes[from].links.handed_arguments) {
        const int32_t to = index.resolve(paths[from], argument.callee_module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        handed[to].insert({argument.callee, argument.position, argument.keyword, argument.what});
        cuda[to] |= outcomes[from].links.cuda;
      }
      for (const Links::LoaderUse& use : outcomes[from].links.loader_uses) {
        const int32_t to = index.resolve(paths[from], use.module);
        if (to < 0 || static_cast<size_t>(to) == from) continue;
        loaders[to].insert(use.function);
        cuda[to] |= outcomes[from].links.cuda;
      }
    }
    std::vector<size_t> changed;
    for (size_t i = 0; i < paths.size(); ++i) {
      Inbound next;
      for (auto& [key, caller] : callers[i]) next.callers.push_back(std::move(caller));
      next.loader_functions.assign(loaders[i].begin(), loaders[i].end());
      next.handed_parameters.assign(handed[i].begin(), handed[i].end());
      next.cuda = cuda[i] != 0;
      next.constants.assign(constants[i].begin(), constants[i].end());
      next.training_calls.assign(training_calls[i].begin(), training_calls[i].end());
      next.device_functions.assign(device_functions[i].begin(), device_functions[i].end());
      next.unwrapping_functions.assign(unwrapping_functions[i].begin(),
                                       unwrapping_functions[i].end());
      next.host_functions.assign(host_functions[i].begin(), host_functions[i].end());
      next.placed_functions.assign(placed_functions[i].begin(), placed_functions[i].end());
      if (next == inbound[i]) continue;
      inbound[i] = std::move(next);
      changed.push_back(i);
    }
    if (changed.empty()) return;
    lint_some(changed);
  }
}

}  // namespace

std::vector<Diagnostic> lint_source(const SourceFile& file, const std::vector<const Rule*>& rules) {
  return lint_source(file, RuleSet{rules, {}, {}, {}});
}

std::vector<Diagnostic> lint_source(const SourceFile& file, const RuleSet& rule_set) {
  return lint_model(file, build_model(file, {}), rule_set);
}

std::vector<std::vector<Diagnostic>> lint_sources(std::span<const SourceFile> files,
                                                  const RuleSet& rule_set) {
  std::vector<std::unique_ptr<FlatTree>> parsed;
  parsed.reserve(files.size());
  for (const SourceFile& file : files) parsed.push_back(parse_ahead(file));
  std::vector<std::vector<Diagnostic>> out;
  out.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const StepModel model = build_model(files[i], {}, parsed[i].get());
    parsed[i].reset();
    out.push_back(lint_model(files[i], model, rule_set));
  }
  return out;
}

LintResult lint_files(const std::vector<std::string>& paths, const LintOptions& options) {
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, paths.size()));
  std::vector<FileOutcome> outcomes(paths.size());
  const RuleSet defaults{options.rules, {}, {}, {}};
  auto rule_set_of = [&](const std::string& path) -> const RuleSet& {
    const RuleSet* own = options.rule_set_for ? options.rule_set_for(path) : nullptr;
    return own != nullptr ? *own : defaults;
  };
  std::vector<Inbound> inbound(paths.size());
  auto lint_all = [&](const std::vector<size_t>& which) {
    std::atomic<size_t> next{0};
    // Files are claimed one at a time and linted a batch at a time (batch_full).
    auto work = [&] {
      std::vector<PendingFile> batch;
      for (bool more = true; more;) {
        batch.clear();
        size_t bytes = 0;
        while (!batch_full(batch.size(), bytes)) {
          const size_t i = next++;
          if (i >= which.size()) {
            more = false;
            break;
          }
          const std::string& path = paths[which[i]];
          const auto text = options.texts.find(path);
          PendingFile pending = admit_path(
              path, text == options.texts.end() ? nullptr : &text->second, rule_set_of(path),
              inbound[which[i]], options.cache, options.max_file_size);
          pending.index = which[i];
          if (!pending.file) {
            outcomes[pending.index] = std::move(pending.outcome);
            continue;
          }
          bytes += pending.file->text().size();
          batch.push_back(std::move(pending));
        }
        // Parsed only once the batch holds them all: a file's bytes do not move after.
        for (PendingFile& pending : batch) pending.parsed = parse_ahead(*pending.file);
        for (PendingFile& pending : batch) {
          const std::string& path = paths[pending.index];
          outcomes[pending.index] =
              lint_pending(pending, rule_set_of(path), inbound[pending.index], options.cache);
        }
      }
    };
    std::vector<std::thread> threads;
    const unsigned n = std::min<unsigned>(jobs, std::max<size_t>(1, which.size()));
    for (unsigned t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
  };
  std::vector<size_t> all(paths.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  plan_cpp_files(paths, rule_set_of, options.cache, options.max_file_size);
  lint_all(all);
  link_modules(paths, outcomes, inbound, lint_all);

  LintResult result;
  result.files_checked = paths.size();
  for (FileOutcome& o : outcomes) {
    if (o.error) {
      (o.error->skipped ? result.skipped : result.errors).push_back(std::move(*o.error));
      --result.files_checked;
    }
    std::move(o.diagnostics.begin(), o.diagnostics.end(), std::back_inserter(result.diagnostics));
  }
  std::sort(result.diagnostics.begin(), result.diagnostics.end(), diagnostic_less);
  for (std::vector<FileError>* v : {&result.errors, &result.skipped}) {
    std::sort(v->begin(), v->end(),
              [](const FileError& a, const FileError& b) { return a.path < b.path; });
  }
  return result;
}

}  // namespace gpulint

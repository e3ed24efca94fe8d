// libFuzzer target for the Python path: arbitrary bytes through what gpulint does with a file's
// bytes (admit_text: refusing binary, UTF-16 and invalid UTF-8, decoding a PEP 263 encoding),
// then lint_source with every rule enabled (default-off ones too), so the parse, the step-model
// walk, classify(), each rule's judgement and fix, suppression parsing and position mapping all
// see hostile input. Bytes gpulint refuses are never parsed by it, so they are not parsed here
// either, and are kept out of the corpus (-1): most mutations of a valid input are refused, and
// parsing them cost most of the executions, in tree-sitter's error recovery, for nothing.
//
// Besides crashes and sanitizer reports, it aborts when a diagnostic points outside the file:
// reporters and --fix trust those spans to slice the bytes.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace {

const std::vector<const gpulint::Rule*>& every_rule() {
  static const std::vector<const gpulint::Rule*> rules(gpulint::all_rules().begin(),
                                                       gpulint::all_rules().end());
  return rules;
}

[[noreturn]] void violated(const gpulint::Diagnostic& diagnostic, const char* what) {
  std::fprintf(stderr, "%s: %s at %u:%u (bytes %u..%u)\n", diagnostic.code.c_str(), what,
               diagnostic.location.start.line, diagnostic.location.start.column,
               diagnostic.location.span.begin, diagnostic.location.span.end);
  std::abort();
}

void check_span(const gpulint::Diagnostic& diagnostic, const gpulint::Span& span, size_t size,
                const char* what) {
  if (span.begin > span.end || span.end > size) violated(diagnostic, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpulint::AdmittedText admitted =
      gpulint::admit_text("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  if (!admitted.error.empty()) return -1;
  size = admitted.bytes.size();
  const gpulint::SourceFile file("fuzz.py", std::move(admitted.bytes));
  for (const gpulint::Diagnostic& diagnostic : gpulint::lint_source(file, every_rule())) {
    check_span(diagnostic, diagnostic.location.span, size, "span outside the file");
    const gpulint::Position& start = diagnostic.location.start;
    const gpulint::Position& end = diagnostic.location.end;
    if (start.line < 1 || end.line > file.line_count() || end.line < start.line ||
        (end.line == start.line && end.column < start.column)) {
      violated(diagnostic, "position outside the file or reversed");
    }
    for (const gpulint::Related& related : diagnostic.related) {
      check_span(diagnostic, related.location.span, size, "related span outside the file");
    }
    if (diagnostic.fix) {
      for (const gpulint::Edit& edit : diagnostic.fix->edits) {
        check_span(diagnostic, edit.span, size, "fix edit outside the file");
      }
    }
  }
  return 0;
}

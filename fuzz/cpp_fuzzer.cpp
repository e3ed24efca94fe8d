// libFuzzer target for the C++ path without a compile database: arbitrary bytes through the
// tree-sitter-cpp front end and every rule, as `gpulint` lints a .cpp file no database lists.
// Aborts, besides sanitizer reports, when a diagnostic points outside the file. Bytes gpulint
// refuses to analyse (admit_text: binary, UTF-16, invalid UTF-8) are refused here too (-1).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/cpp/front_end.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace {

const std::vector<const gpulint::Rule*>& every_rule() {
  static const std::vector<const gpulint::Rule*> rules(gpulint::all_rules().begin(),
                                                       gpulint::all_rules().end());
  return rules;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A path no compile database lists (none is searched for under it): the syntax path only.
  const std::string path = "/nonexistent/gpulint-fuzz/input.cpp";
  gpulint::AdmittedText admitted =
      gpulint::admit_text(path, std::string(reinterpret_cast<const char*>(data), size));
  if (!admitted.error.empty()) return -1;
  const gpulint::SourceFile file(path, std::move(admitted.bytes));
  for (const gpulint::Diagnostic& d : gpulint::lint_source(file, every_rule())) {
    if (d.location.span.begin > d.location.span.end || d.location.span.end > size) {
      std::fprintf(stderr, "%s: span outside the file (bytes %u..%u)\n", d.code.c_str(),
                   d.location.span.begin, d.location.span.end);
      std::abort();
    }
    if (d.fix) {
      for (const gpulint::Edit& e : d.fix->edits) {
        if (e.span.begin > e.span.end || e.span.end > size) std::abort();
      }
    }
  }
  return 0;
}

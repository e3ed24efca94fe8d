// libFuzzer target for the small parsers a user's files feed: arbitrary bytes as a
// `.gpulint.toml` and as a `pyproject.toml` (TOML, then gpulint's keys, selectors and globs),
// and each line of them as a suppression comment (`gpulint: ignore[...]`, `noqa:`, `NOLINT(...)`)
// — without the Python parse in front, so each execution is cheap. A ConfigError is the
// expected answer to bad input; anything else escaping, or a sanitizer report, is a bug.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/core/config.h"
#include "analyzer/core/source_file.h"
#include "analyzer/core/suppressions.h"
#include "rules/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"/fuzz/.gpulint.toml", "/fuzz/pyproject.toml"}) {
    try {
      (void)gpulint::parse_config(text, name, gpulint::all_rules());
    } catch (const gpulint::ConfigError&) {
    }
  }
  const gpulint::SourceFile file("fuzz.py", text);
  std::vector<gpulint::Comment> comments;
  for (uint32_t line = 1; line <= file.line_count(); ++line) {
    const uint32_t begin = file.line_start(line);
    comments.push_back(
        {{begin, begin + static_cast<uint32_t>(file.line_text(line).size())}, line % 2 == 0});
  }
  gpulint::Suppressions suppressions = gpulint::Suppressions::parse(file, comments);
  for (uint32_t line = 1; line <= file.line_count() && line < 64; ++line)
    (void)suppressions.suppressed("GL101", line);
  (void)suppressions.unused([](const std::string&) { return true; });
  (void)suppressions.unknown_codes([](const std::string& c) { return c.starts_with("GL1"); });
  return 0;
}

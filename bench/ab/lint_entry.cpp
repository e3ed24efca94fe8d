// The whole per-file pipeline behind one C entry point, built into a shared library per
// revision so that ab_harness can load two revisions into one process and time them file by
// file, interleaved: on a shared machine that is the only way to see a change of 1%.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

extern "C" __attribute__((visibility("default"))) size_t gpulint_ab_lint(const char* path,
                                                                         const char* text,
                                                                         size_t size) {
  static const std::vector<const gpulint::Rule*> rules = [] {
    std::vector<const gpulint::Rule*> on;
    for (const gpulint::Rule* rule : gpulint::all_rules()) {
      if (rule->info.default_on) on.push_back(rule);
    }
    return on;
  }();
  const gpulint::SourceFile file(path, std::string(text, size));
  return gpulint::lint_source(file, rules).size();
}

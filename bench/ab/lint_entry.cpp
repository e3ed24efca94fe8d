// The whole per-file pipeline behind one C entry point, built into a shared library per
// revision so that ab_harness can load two revisions into one process and time them file by
// file, interleaved: on a shared machine that is the only way to see a change of 1%.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace {

const std::vector<const gpulint::Rule*>& default_rules() {
  static const std::vector<const gpulint::Rule*> rules = [] {
    std::vector<const gpulint::Rule*> on;
    for (const gpulint::Rule* rule : gpulint::all_rules()) {
      if (rule->info.default_on) on.push_back(rule);
    }
    return on;
  }();
  return rules;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) size_t gpulint_ab_lint(const char* path,
                                                                         const char* text,
                                                                         size_t size) {
  const gpulint::SourceFile file(path, std::string(text, size));
  return gpulint::lint_source(file, default_rules()).size();
}

// The files from the first given on that make one batch (gpulint::batch_full), linted as the engine
// lints a batch; returns how many files that was, and adds their findings to `findings`.
extern "C" __attribute__((visibility("default"))) size_t gpulint_ab_lint_batch(
    const char* const* paths, const char* const* texts, const size_t* sizes, size_t count,
    size_t* findings) {
  std::vector<gpulint::SourceFile> batch;
  size_t bytes = 0;
  for (size_t i = 0; i < count && !gpulint::batch_full(batch.size(), bytes); ++i) {
    batch.emplace_back(paths[i], std::string(texts[i], sizes[i]));
    bytes += sizes[i];
  }
  const gpulint::RuleSet rules{default_rules(), {}, {}, {}};
  for (const auto& diagnostics : gpulint::lint_sources(batch, rules))
    *findings += diagnostics.size();
  return batch.size();
}

// The engine lints a batch of files at a time (engine.h: parsed one after another, then
// analysed one after another). A batch must give each file what it gets alone.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzer/engine.h"
#include "rules/registry.h"
#include "tests/fixture_files.h"

namespace gpulint::testing {
namespace {

// What a test compares of a finding: where it is, what it says, and its fix.
std::vector<std::string> described(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics) {
    std::string line = d.code + "@" + std::to_string(d.location.start.line) + ":" +
                       std::to_string(d.location.start.column) + " " + d.message;
    if (d.fix) line += " [fix]";
    out.push_back(std::move(line));
  }
  return out;
}

TEST(Batches, EveryFixtureGetsInABatchWhatItGetsAlone) {
  const std::span<const Rule* const> every = all_rules();
  const RuleSet rules{{every.begin(), every.end()}, {}, {}, {}};
  std::vector<SourceFile> files;
  for (const std::string& path : fixture_files("python", ".py"))
    files.emplace_back(path, read_file(source_dir() / path));
  ASSERT_GT(files.size(), 100u);
  size_t findings = 0;
  // Batches as the engine makes them, and one batch of every file.
  for (size_t first = 0; first < files.size();) {
    size_t count = 0, bytes = 0;
    while (first + count < files.size() && !batch_full(count, bytes))
      bytes += files[first + count++].text().size();
    const std::span<const SourceFile> batch(files.data() + first, count);
    const std::vector<std::vector<Diagnostic>> together = lint_sources(batch, rules);
    ASSERT_EQ(together.size(), count);
    for (size_t i = 0; i < count; ++i) {
      EXPECT_EQ(described(together[i]), described(lint_source(batch[i], rules))) << batch[i].path();
      findings += together[i].size();
    }
    first += count;
  }
  EXPECT_GT(findings, 100u);
  const std::vector<std::vector<Diagnostic>> all = lint_sources(files, rules);
  for (size_t i = 0; i < files.size(); ++i)
    EXPECT_EQ(described(all[i]), described(lint_source(files[i], rules))) << files[i].path();
}

}  // namespace
}  // namespace gpulint::testing

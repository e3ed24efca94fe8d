// Where the time of one file goes: the tree-sitter parse alone, the parse copied into the flat
// tree the walk reads, the front end (parse plus the one
// walk that fills the step model), and the whole lint_source (line index, model, every default
// rule, suppressions). Run on the bundled example side by side, so the ratios between the three
// rows hold even on a noisy machine.

#include <benchmark/benchmark.h>
#include <tree_sitter/api.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/engine.h"
#include "analyzer/flat_tree.h"
#include "analyzer/python/front_end.h"
#include "rules/registry.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

constexpr const char* kExample = GPULINT_SOURCE_DIR "/examples/train.py";

const std::string& example() {
  static const std::string text = [] {
    std::ifstream in(kExample, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  return text;
}

// A missing example would otherwise time the empty string and look very fast.
bool have_example(benchmark::State& state) {
  if (example().empty()) {
    state.SkipWithError((std::string(kExample) + " is missing or empty").c_str());
    return false;
  }
  return true;
}

void BM_ParseOnly(benchmark::State& state) {
  if (!have_example(state)) return;
  const std::string& text = example();
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  for (auto _ : state) {
    TSTree* tree =
        ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
    benchmark::DoNotOptimize(tree);
    ts_tree_delete(tree);
  }
  ts_parser_delete(parser);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMicrosecond);

void BM_ParseAndFlatten(benchmark::State& state) {
  if (!have_example(state)) return;
  const std::string& text = example();
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  for (auto _ : state) {
    TSTree* tree =
        ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
    const gpulint::FlatTree flat(gpulint::SyntaxTree(tree), tree_sitter_python());
    benchmark::DoNotOptimize(flat.size());
  }
  ts_parser_delete(parser);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseAndFlatten)->Unit(benchmark::kMicrosecond);

void BM_BuildModel(benchmark::State& state) {
  if (!have_example(state)) return;
  const std::string& text = example();
  for (auto _ : state) {
    gpulint::StepModel model = gpulint::python::build_model(text);
    benchmark::DoNotOptimize(model);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_BuildModel)->Unit(benchmark::kMicrosecond);

void BM_LintSource(benchmark::State& state) {
  if (!have_example(state)) return;
  const std::string& text = example();
  std::vector<const gpulint::Rule*> rules;
  for (const gpulint::Rule* rule : gpulint::all_rules()) {
    if (rule->info.default_on) rules.push_back(rule);
  }
  for (auto _ : state) {
    const gpulint::SourceFile file("examples/train.py", text);
    std::vector<gpulint::Diagnostic> diagnostics = gpulint::lint_source(file, rules);
    benchmark::DoNotOptimize(diagnostics);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_LintSource)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

// Times the tree-sitter parse alone (the floor) and two builds of gpulint's pipeline (shared
// libraries made by bench/ab/ab.sh) in one process, rotating which of the three runs first.
// Prints each pipeline's time against the floor and B's against A's.
//
// By default the three take turns file by file, which cancels the machine's drift best but
// runs each with its code and branch history cold: it leaves out what the pipeline's own code
// costs the parse it runs next to. With --passes they take turns pass by pass over the corpus,
// as the corpus bench runs them, each warm through its pass; pin the process to one core
// (taskset) so that the scheduler moves no pass mid-way.
// In passes, a library that lints a batch at a time (gpulint_ab_lint_batch, as the engine's pool
// does) is given the corpus a batch at a time; one without it (an older revision), file by file.
//
//   ab_harness CORPUS_DIR LIB_A.so LIB_B.so REPEATS [--passes]
#include <dlfcn.h>
#include <tree_sitter/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

using LintFn = size_t (*)(const char*, const char*, size_t);
using BatchFn = size_t (*)(const char* const*, const char* const*, const size_t*, size_t, size_t*);

struct Library {
  LintFn lint;
  BatchFn batch;  // null when the revision has none
};

Library load(const char* library) {
  // RTLD_LOCAL: each library keeps its own copy of the analyzer and of tree-sitter.
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "ab_harness: %s\n", dlerror());
    std::exit(2);
  }
  auto fn = reinterpret_cast<LintFn>(dlsym(handle, "gpulint_ab_lint"));
  if (fn == nullptr) {
    std::fprintf(stderr, "ab_harness: %s has no gpulint_ab_lint\n", library);
    std::exit(2);
  }
  return {fn, reinterpret_cast<BatchFn>(dlsym(handle, "gpulint_ab_lint_batch"))};
}

}  // namespace

int main(int argc, char** argv) {
  const bool passes = argc == 6 && std::string(argv[5]) == "--passes";
  if (argc != 5 && !passes) {
    std::fprintf(stderr, "usage: ab_harness CORPUS_DIR LIB_A.so LIB_B.so REPEATS [--passes]\n");
    return 2;
  }
  std::vector<std::string> paths, texts;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[1])) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const Library lint[2] = {load(argv[2]), load(argv[3])};
  std::vector<const char*> path_ptrs, text_ptrs;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < paths.size(); ++i) {
    path_ptrs.push_back(paths[i].c_str());
    text_ptrs.push_back(texts[i].data());
    sizes.push_back(texts[i].size());
  }
  const int repeats = std::max(1, std::atoi(argv[4]));
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());

  using Clock = std::chrono::steady_clock;
  double seconds[3] = {0, 0, 0};  // floor, A, B
  size_t findings[2] = {0, 0};
  auto run = [&](size_t which, size_t i) {
    if (which == 0) {
      ts_tree_delete(ts_parser_parse_string(parser, nullptr, texts[i].data(),
                                            static_cast<uint32_t>(texts[i].size())));
    } else {
      findings[which - 1] +=
          lint[which - 1].lint(paths[i].c_str(), texts[i].data(), texts[i].size());
    }
  };
  // A whole pass over the corpus, a batch at a time where the library can.
  auto pass = [&](size_t which) {
    if (which == 0 || lint[which - 1].batch == nullptr) {
      for (size_t file = 0; file < texts.size(); ++file) run(which, file);
      return;
    }
    for (size_t file = 0; file < texts.size();) {
      file += lint[which - 1].batch(&path_ptrs[file], &text_ptrs[file], &sizes[file],
                                    texts.size() - file, &findings[which - 1]);
    }
  };
  for (int r = 0; r < repeats; ++r) {
    for (size_t i = 0; i < (passes ? 1 : texts.size()); ++i) {
      for (size_t k = 0; k < 3; ++k) {
        const size_t which = (k + r + i) % 3;
        const Clock::time_point start = Clock::now();
        if (passes) {
          pass(which);
        } else {
          run(which, i);
        }
        seconds[which] += std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
  }
  ts_parser_delete(parser);
  std::printf("%zu files x %d: parse-only %.3f s, A %.3f s (%.3fx), B %.3f s (%.3fx), B/A %.4f\n",
              paths.size(), repeats, seconds[0], seconds[1], seconds[1] / seconds[0], seconds[2],
              seconds[2] / seconds[0], seconds[2] / seconds[1]);
  if (findings[0] != findings[1]) {
    std::printf("findings differ: A %zu, B %zu\n", findings[0], findings[1]);
  }
  return 0;
}

// The result cache's payoff: an unchanged re-run of a tree against a cold run, as the command
// line does it (lint_files with the cache loaded from disk and saved back), measured side by
// side in one process and reported as a ratio, since this machine is shared and noisy.
//
//   gpulint_cache_bench DIR [--repeat N]

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "analyzer/engine.h"
#include "analyzer/result_cache.h"
#include "rules/registry.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// One CLI-like run; `cache_dir` empty means --no-cache.
double timed_run(const std::vector<std::string>& paths, const gpulint::LintOptions& base,
                 const fs::path& cache_dir, size_t& findings) {
  const Clock::time_point start = Clock::now();
  gpulint::LintOptions options = base;
  std::optional<gpulint::ResultCache> cache;
  if (!cache_dir.empty()) {
    cache.emplace(cache_dir, "bench", "bench");
    options.cache = &*cache;
  }
  findings = gpulint::lint_files(paths, options).diagnostics.size();
  if (cache) cache->save();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !fs::is_directory(argv[1])) {
    std::fputs("usage: gpulint_cache_bench DIR [--repeat N]\n", stderr);
    return 2;
  }
  int repeats = 5;
  if (argc == 4 && std::string_view(argv[2]) == "--repeat")
    repeats = std::max(1, std::atoi(argv[3]));
  std::vector<std::string> paths;
  uintmax_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(argv[1])) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") {
      paths.push_back(entry.path().string());
      bytes += entry.file_size();
    }
  }
  std::sort(paths.begin(), paths.end());

  gpulint::LintOptions options;
  for (const gpulint::Rule* rule : gpulint::all_rules()) {
    if (rule->info.default_on) options.rules.push_back(rule);
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("gpulint-cache-bench-" + std::to_string(::getpid()));
  const fs::path warm_dir = scratch / "warm";
  size_t findings = 0, warm_findings = 0, cold_findings = 0;
  timed_run(paths, options, warm_dir, findings);  // fills the warm cache
  std::vector<double> none, cold, warm;
  for (int r = 0; r < repeats; ++r) {
    none.push_back(timed_run(paths, options, {}, findings));
    const fs::path cold_dir = scratch / ("cold" + std::to_string(r));
    cold.push_back(timed_run(paths, options, cold_dir, cold_findings));
    warm.push_back(timed_run(paths, options, warm_dir, warm_findings));
  }
  fs::remove_all(scratch);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("%zu files, %.2f MB, %u threads, median of %d\n", paths.size(),
              static_cast<double>(bytes) / (1024.0 * 1024.0), cores, repeats);
  std::printf("  %-22s %8.3f s  %zu findings\n", "no cache", median(none), findings);
  std::printf("  %-22s %8.3f s  %zu findings\n", "cold (fills the cache)", median(cold),
              cold_findings);
  std::printf("  %-22s %8.3f s  %zu findings\n", "warm (unchanged)", median(warm), warm_findings);
  std::printf("  warm/cold time ratio: %.3f (target <= 0.2); cold/no-cache: %.2f\n",
              median(warm) / median(cold), median(cold) / median(none));
  return warm_findings == cold_findings && cold_findings == findings ? 0 : 1;
}

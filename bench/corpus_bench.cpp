// Corpus throughput: gpulint's whole per-file pipeline against the tree-sitter parse alone, the
// floor no Python linter built on tree-sitter can go below. The machine is noisy and shared, so
// both are measured in one process, interleaved repeat by repeat, and compared as a ratio; the
// absolute figures are only good for this run.
//
// Each corpus size runs in its own forked child, so each gets its own ru_maxrss: the parent never
// holds the corpus, and the 2x run shows whether peak memory grows with the number of files.

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tree_sitter/api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

namespace fs = std::filesystem;

struct Corpus {
  std::vector<std::string> paths;
  std::vector<std::string> texts;
  uint64_t bytes = 0;
  uint64_t lines = 0;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t count_lines(std::string_view text) {
  uint64_t lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  return lines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Every file `copies` times, each copy its own bytes, as a corpus that large would be.
Corpus load_corpus(const std::vector<std::string>& paths, int copies) {
  Corpus corpus;
  for (int copy = 0; copy < copies; ++copy) {
    for (const std::string& path : paths) {
      corpus.paths.push_back(path);
      corpus.texts.push_back(read_file(path));
      corpus.bytes += corpus.texts.back().size();
      corpus.lines += count_lines(corpus.texts.back());
    }
  }
  return corpus;
}

using Clock = std::chrono::steady_clock;

// Hands files to `threads` workers through one atomic counter, as the engine's pool does; each
// worker builds its own state first (a parser must not be shared between threads). Returns the
// wall and CPU time and adds every body's checksum to `checksum` so no work can be optimised
// away. The CPU time is the process's: on a shared machine it leaves out the time other
// programs held the cores, which the wall time counts.
struct Timing {
  double wall, cpu;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// A one-thread run stays on one core, the same for every such run: left to the scheduler, the
// single worker's time on the development machine (two virtual cores) changed by up to 2x in
// either direction from one run to the next, where pinned runs agree to a few percent.
// -1: not pinned.
void pin_to(int core) {
  if (core < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// `work(state, claim)` runs in each worker: claim() hands out the next file's index, or
// `files` once all are taken; work returns its checksum.
template <class MakeState, class Work>
Timing timed_pool(unsigned threads, int core, size_t files, uint64_t& checksum,
                  MakeState make_state, Work work) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> total{0};
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point start = Clock::now();
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        if (threads == 1) pin_to(core);
        auto state = make_state();
        auto claim = [&] { return std::min(next.fetch_add(1, std::memory_order_relaxed), files); };
        total.fetch_add(work(state, claim), std::memory_order_relaxed);
      });
    }
  }
  checksum = total.load();
  return {std::chrono::duration<double>(Clock::now() - start).count(),
          process_cpu_seconds() - cpu_start};
}

struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;

Timing run_parse(const Corpus& corpus, unsigned threads, int core, uint64_t& checksum) {
  return timed_pool(
      threads, core, corpus.texts.size(), checksum,
      [] {
        ParserPtr parser(ts_parser_new());
        ts_parser_set_language(parser.get(), tree_sitter_python());
        return parser;
      },
      [&](ParserPtr& parser, auto claim) -> uint64_t {
        uint64_t sum = 0;
        for (size_t i; (i = claim()) < corpus.texts.size();) {
          const std::string& text = corpus.texts[i];
          TSTree* tree = ts_parser_parse_string(parser.get(), nullptr, text.data(),
                                                static_cast<uint32_t>(text.size()));
          sum += ts_node_end_byte(ts_tree_root_node(tree));
          ts_tree_delete(tree);
        }
        return sum;
      });
}

// The SourceFile is built inside the timed region: copying the bytes and indexing the lines is
// part of what the tool does for every file it reads. Files are claimed one at a time and linted
// a batch at a time, as the engine's pool does (gpulint::batch_full).
Timing run_lint(const Corpus& corpus, const std::vector<const gpulint::Rule*>& rules,
                unsigned threads, int core, uint64_t& checksum) {
  const gpulint::RuleSet rule_set{rules, {}, {}, {}};
  struct NoState {};
  return timed_pool(
      threads, core, corpus.texts.size(), checksum, [] { return NoState{}; },
      [&](NoState&, auto claim) -> uint64_t {
        uint64_t sum = 0;
        std::vector<gpulint::SourceFile> batch;
        for (bool more = true; more;) {
          batch.clear();
          size_t bytes = 0;
          while (!gpulint::batch_full(batch.size(), bytes)) {
            const size_t i = claim();
            if (i == corpus.texts.size()) {
              more = false;
              break;
            }
            batch.emplace_back(corpus.paths[i], corpus.texts[i]);
            bytes += corpus.texts[i].size();
          }
          for (const auto& diagnostics : gpulint::lint_sources(batch, rule_set))
            sum += diagnostics.size();
        }
        return sum;
      });
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

uint64_t vm_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

uint64_t peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss);  // KiB on Linux
}

// What a child sends back through its pipe; plain data so it crosses as bytes.
struct MemoryFigures {
  uint64_t files = 0;
  uint64_t corpus_bytes = 0;
  uint64_t loaded_rss_kib = 0;  // after the corpus is in memory, before any work
  uint64_t peak_rss_kib = 0;
};

constexpr double kMiB = 1024.0 * 1024.0;

MemoryFigures measure(const std::vector<std::string>& paths, int copies, int repeats,
                      unsigned cores) {
  const Corpus corpus = load_corpus(paths, copies);
  MemoryFigures memory;
  memory.files = corpus.texts.size();
  memory.corpus_bytes = corpus.bytes;
  memory.loaded_rss_kib = vm_rss_kib();

  std::vector<const gpulint::Rule*> rules;
  for (const gpulint::Rule* rule : gpulint::all_rules()) {
    if (rule->info.default_on) rules.push_back(rule);
  }

  struct Config {
    const char* name;
    bool lint;
    unsigned threads;
    std::vector<double> seconds, cpu_seconds;
    uint64_t checksum = 0;
  };
  std::vector<Config> configs = {
      {"parse-only", false, 1, {}, {}},
      {"gpulint", true, 1, {}, {}},
      {"parse-only", false, cores, {}, {}},
      {"gpulint", true, cores, {}, {}},
  };
  const int core = sched_getcpu();
  // Rotating the order each repeat keeps a slow phase of the machine from always hitting the
  // same configuration.
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (size_t k = 0; k < configs.size(); ++k) {
      Config& config = configs[(k + static_cast<size_t>(repeat)) % configs.size()];
      const Timing t = config.lint ? run_lint(corpus, rules, config.threads, core, config.checksum)
                                   : run_parse(corpus, config.threads, core, config.checksum);
      config.seconds.push_back(t.wall);
      config.cpu_seconds.push_back(t.cpu);
    }
  }
  memory.peak_rss_kib = peak_rss_kib();

  std::printf("corpus x%d: %zu files, %.2f MB, %llu lines, %zu default rules, median of %d\n",
              copies, corpus.texts.size(), static_cast<double>(corpus.bytes) / kMiB,
              static_cast<unsigned long long>(corpus.lines), rules.size(), repeats);
  std::printf("  %-10s %7s %9s %9s %8s %12s %10s %9s\n", "pipeline", "threads", "time s", "cpu s",
              "MB/s", "lines/s", "files/s", "findings");
  std::vector<double> medians, cpu_medians;
  for (const Config& config : configs) {
    const double seconds = median(config.seconds);
    medians.push_back(seconds);
    cpu_medians.push_back(median(config.cpu_seconds));
    std::printf("  %-10s %7u %9.3f %9.3f %8.2f %12.0f %10.0f %9s\n", config.name, config.threads,
                seconds, cpu_medians.back(), static_cast<double>(corpus.bytes) / kMiB / seconds,
                static_cast<double>(corpus.lines) / seconds,
                static_cast<double>(corpus.texts.size()) / seconds,
                config.lint ? std::to_string(config.checksum).c_str() : "-");
  }
  std::printf("  time ratio gpulint/parse-only: %.2f (1 thread), %.2f (%u threads)\n",
              medians[1] / medians[0], medians[3] / medians[2], cores);
  std::printf("  cpu ratio gpulint/parse-only:  %.2f (1 thread), %.2f (%u threads)\n",
              cpu_medians[1] / cpu_medians[0], cpu_medians[3] / cpu_medians[2], cores);
  std::printf("  peak RSS %.1f MB, after loading the corpus %.1f MB\n\n",
              static_cast<double>(memory.peak_rss_kib) / 1024.0,
              static_cast<double>(memory.loaded_rss_kib) / 1024.0);
  return memory;
}

MemoryFigures measure_in_child(const std::vector<std::string>& paths, int copies, int repeats,
                               unsigned cores) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);  // or the child would print the parent's buffered output again
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    close(fds[0]);
    int status = 0;
    try {
      const MemoryFigures memory = measure(paths, copies, repeats, cores);
      if (write(fds[1], &memory, sizeof memory) != sizeof memory) status = 1;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "gpulint_corpus_bench: %s\n", error.what());
      status = 1;
    }
    std::fflush(stdout);
    _exit(status);
  }
  close(fds[1]);
  MemoryFigures memory;
  const ssize_t got = read(fds[0], &memory, sizeof memory);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (got != sizeof memory || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("the x" + std::to_string(copies) + " run failed");
  }
  return memory;
}

std::vector<std::string> python_files(const fs::path& dir) {
  std::vector<std::string> paths;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

int parse_repeat(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    throw std::invalid_argument("--repeat wants a positive integer, got '" + std::string(text) +
                                "'");
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: gpulint_corpus_bench DIR [--repeat N]\n";
  std::string dir;
  int repeats = 5;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--repeat" && i + 1 < argc) {
        repeats = parse_repeat(argv[++i]);
      } else if (arg.starts_with("--repeat=")) {
        repeats = parse_repeat(arg.substr(9));
      } else if (dir.empty() && !arg.starts_with("-")) {
        dir = arg;
      } else {
        std::fputs(usage, stderr);
        return 2;
      }
    }
    if (dir.empty() || !fs::is_directory(dir)) {
      std::fputs(usage, stderr);
      return 2;
    }
    const std::vector<std::string> paths = python_files(dir);
    if (paths.empty()) {
      std::fprintf(stderr, "gpulint_corpus_bench: no .py files under %s\n", dir.c_str());
      return 2;
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    const MemoryFigures once = measure_in_child(paths, 1, repeats, cores);
    const MemoryFigures twice = measure_in_child(paths, 2, repeats, cores);

    // The corpus itself is held in memory and doubles; what must not grow is the rest.
    auto row = [](const char* name, const MemoryFigures& m) {
      std::printf("  %-6s %7llu %10.1f %13.1f %12.1f %12.1f\n", name,
                  static_cast<unsigned long long>(m.files),
                  static_cast<double>(m.corpus_bytes) / kMiB,
                  static_cast<double>(m.loaded_rss_kib) / 1024.0,
                  static_cast<double>(m.peak_rss_kib) / 1024.0,
                  static_cast<double>(m.peak_rss_kib - m.loaded_rss_kib) / 1024.0);
    };
    std::printf("peak memory by corpus size (MB; work = peak RSS - RSS with the corpus loaded)\n");
    std::printf("  %-6s %7s %10s %13s %12s %12s\n", "corpus", "files", "corpus MB", "loaded RSS",
                "peak RSS", "work");
    row("x1", once);
    row("x2", twice);
    const auto delta_mib = [](uint64_t a, uint64_t b) {
      return (static_cast<double>(a) - static_cast<double>(b)) / 1024.0;
    };
    std::printf("  delta x2-x1: peak RSS %+.1f MB, of which corpus bytes %+.1f MB, work %+.1f MB\n",
                delta_mib(twice.peak_rss_kib, once.peak_rss_kib),
                static_cast<double>(twice.corpus_bytes - once.corpus_bytes) / kMiB,
                delta_mib(twice.peak_rss_kib - twice.loaded_rss_kib,
                          once.peak_rss_kib - once.loaded_rss_kib));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpulint_corpus_bench: %s\n", error.what());
    return 2;
  }
  return 0;
}

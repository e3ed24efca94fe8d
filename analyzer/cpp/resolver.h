#pragma once

// Names of calls as Clang resolves them, for C++ files a compile database covers. The
// tree-sitter walk asks it what a call really calls: `synchronize()` after `using namespace
// torch::cuda` is `torch::cuda::synchronize`, `SYNC()` expands to it, and `queue.item()` on a
// user's class is not `at::Tensor::item`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpulint::cpp {

// A loop a macro writes around a body the file spells (`FOR_EACH_BATCH(batch, loader) {...}`,
// `REPEAT(n) step();`): tree-sitter sees a call and a block (or a broken statement), Clang sees
// the loop.
struct MacroLoop {
  uint32_t header_begin = 0;          // where the macro's invocation starts
  uint32_t header_end = 0;            // and where it ends
  bool block = true;                  // the body is a `{...}` block, not one statement
  std::string iterated;               // the range-for's range, as a plain name; empty otherwise
  std::vector<std::string> bound;     // names the loop declares for each iteration
  std::vector<std::string> counters;  // names a `for` declares in its init
};

struct Resolution {
  // (begin, end) byte offsets of a call in the main file -> the callee's qualified name
  // (`at::Tensor::item`, `torch::cuda::synchronize`). A call written in a macro's body is keyed
  // by the macro invocation; one in a macro argument by where it is spelt.
  std::unordered_map<uint64_t, std::string> callees;
  // The same calls -> where the name of each function definition they call is, in the main
  // file: a template's, for a call of one of its instantiations (several when instantiations
  // of the caller pick different overloads). A call Clang resolved to a function defined
  // elsewhere has none.
  std::unordered_map<uint64_t, std::vector<uint32_t>> definitions;
  std::string error;          // the first error Clang reported; empty when clean
  uint32_t error_offset = 0;  // where, when that is in the main file
  // The byte offset of a macro-written loop's body (its `{`, or its one statement's first
  // byte) in the main file -> the loop.
  std::unordered_map<uint32_t, MacroLoop> macro_loops;
  bool shared_preamble = false;  // parsed on the run's PCH of its leading #include block

  static uint64_t key(uint32_t begin, uint32_t end) { return (uint64_t{begin} << 32) | end; }
  const std::string* callee(uint32_t begin, uint32_t end) const {
    auto it = callees.find(key(begin, end));
    return it == callees.end() ? nullptr : &it->second;
  }
  const std::vector<uint32_t>* definitions_of(uint32_t begin, uint32_t end) const {
    auto it = definitions.find(key(begin, end));
    return it == definitions.end() ? nullptr : &it->second;
  }
};

// Where compile databases are looked for: `-p DIR` when given, else the nearest
// compile_commands.json above the file, else build/ under the working directory.
void set_compile_database_dir(std::string dir);

// Runs Clang on `path` (whose text is `text`) with its flags from the compile database; nullopt
// when no database covers the file, or the Clang front end is not there
// (clang_unavailable_reason), and the caller stays with syntax. The front end is a module
// (clang/module.h) loaded by the first file that has a database. Files of one run with the same
// leading #include block share a precompiled header of it (clang/preamble.h).
std::optional<Resolution> resolve_with_clang(const std::string& path, std::string_view text);

// The C++ files the coming run will hand to resolve_with_clang, announced before it starts so
// that files sharing a leading #include block build its PCH first and none parses it whole.
void plan_clang_run(const std::vector<std::string>& paths);

// Told, from the worker threads, when Clang starts and ends a file: a parse through LibTorch's
// headers takes seconds, and the command line shows which on a terminal. Null: nobody is told.
class ClangProgress {
 public:
  virtual ~ClangProgress() = default;
  virtual void started(const std::string& path) = 0;
  virtual void finished(const std::string& path) = 0;
};
void set_clang_progress(ClangProgress* progress);

// True when the Clang front end can be loaded (loading it: tests and `doctor` ask).
bool clang_available();
// Why files with a compile database were analysed by syntax alone in this process: the module
// is not built or would not load. Empty when none wanted Clang, or Clang was there.
std::string clang_unavailable_reason();

}  // namespace gpulint::cpp

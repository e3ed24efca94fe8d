// resolver.h's side in gpulint itself: the Clang front end (clang/module.h) is loaded the first
// time a C++ file has a compile database, never for a run without one.
#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "analyzer/cpp/clang/module.h"
#include "analyzer/cpp/database_search.h"
#include "analyzer/cpp/resolver.h"

namespace gpulint::cpp {
namespace {

namespace fs = std::filesystem;

std::mutex& state_mutex() {
  static std::mutex m;
  return m;
}
std::string& database_dir() {
  static std::string dir;
  return dir;
}
std::string database_dir_now() {
  std::lock_guard<std::mutex> lock(state_mutex());
  return database_dir();
}

struct Loaded {
  const ClangModule* module = nullptr;
  std::string problem;  // why it is not there, when it is not
};

// Where the module is: beside the running executable (an installed or copied gpulint), then
// where this build wrote it (the tests, the benchmarks).
std::vector<fs::path> module_paths() {
  std::vector<fs::path> paths;
  std::error_code ec;
  if (fs::path self = fs::read_symlink("/proc/self/exe", ec); !ec)
    paths.push_back(self.parent_path() / GPULINT_CLANG_MODULE_NAME);
  if (const std::string built = GPULINT_CLANG_MODULE_BUILT; !built.empty()) paths.push_back(built);
  return paths;
}

// The first module found is the one used: one beside gpulint that will not load is reported,
// not passed over for another build's.
Loaded load_module() {
  if (std::string(GPULINT_CLANG_MODULE_BUILT).empty())
    return {nullptr, "this gpulint was built without the Clang front end (GPULINT_WITH_CLANG=OFF)"};
  for (const fs::path& path : module_paths()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    // RTLD_LOCAL: LLVM's symbols stay the module's own.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      return {nullptr, "the Clang front end could not be loaded: " + std::string(dlerror())};
    auto entry = reinterpret_cast<const ClangModule* (*)()>(dlsym(handle, "gpulint_clang_module"));
    const ClangModule* module = entry ? entry() : nullptr;
    if (module == nullptr || module->abi != kClangModuleAbi ||
        module->resolution_size != sizeof(Resolution)) {
      dlclose(handle);
      return {nullptr, path.string() + " is not this build's Clang front end"};
    }
    return {module, ""};  // never closed: LLVM's static state lives until the process ends
  }
  return {nullptr, "the Clang front end (" + std::string(GPULINT_CLANG_MODULE_NAME) +
                       ") is not beside gpulint"};
}

std::atomic<ClangProgress*> progress{nullptr};

std::atomic<bool> wanted{false};  // some file of this process had a database

const Loaded& module() {
  wanted = true;
  static const Loaded loaded = load_module();
  return loaded;
}

// Whether Clang has anything to read for `path`: the module is not loaded otherwise.
bool may_have_database(const std::string& path, const std::string& explicit_dir) {
  if (!explicit_dir.empty()) return true;
  std::error_code ec;
  const fs::path file = fs::absolute(path, ec);
  if (ec) return false;
  for (const fs::path& dir : compile_database_candidates(file, explicit_dir)) {
    if (fs::exists(dir / "compile_commands.json", ec)) return true;
  }
  return false;
}

}  // namespace

void set_compile_database_dir(std::string dir) {
  std::lock_guard<std::mutex> lock(state_mutex());
  database_dir() = std::move(dir);
}

void plan_clang_run(const std::vector<std::string>& paths) {
  const std::string dir = database_dir_now();
  for (const std::string& path : paths) {
    if (!may_have_database(path, dir)) continue;
    if (const ClangModule* m = module().module) m->plan_run(paths, dir);
    return;
  }
}

std::optional<Resolution> resolve_with_clang(const std::string& path, std::string_view text) {
  const std::string dir = database_dir_now();
  if (!may_have_database(path, dir)) return std::nullopt;
  const ClangModule* m = module().module;
  if (m == nullptr) return std::nullopt;
  ClangProgress* told = progress.load();
  if (told) told->started(path);
  std::optional<Resolution> resolution = m->resolve(path, text, dir);
  if (told) told->finished(path);
  return resolution;
}

void set_clang_progress(ClangProgress* p) { progress = p; }

bool clang_available() { return module().module != nullptr; }

std::string clang_unavailable_reason() { return wanted ? module().problem : std::string(); }

}  // namespace gpulint::cpp

#include "analyzer/core/libgit2.h"

#include <dlfcn.h>

namespace gpulint {
namespace {

struct Loaded {
  Libgit2 api{};
  bool ok = false;
  std::string problem;
};

template <class Fn>
bool bind(void* handle, const char* name, Fn& fn, std::string& problem) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr && problem.empty())
    problem = std::string(GPULINT_LIBGIT2_SONAME) + " has no " + name;
  return fn != nullptr;
}

Loaded load() {
  Loaded loaded;
  // The soname this build was linked against: its functions and structures are the ones the
  // headers describe.
  void* handle = dlopen(GPULINT_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    loaded.problem = dlerror();
    return loaded;
  }
  decltype(&::git_libgit2_init) init = nullptr;
  Libgit2& a = loaded.api;
  std::string& p = loaded.problem;
  const bool all = bind(handle, "git_libgit2_init", init, p) &
                   bind(handle, "git_repository_open_ext", a.repository_open_ext, p) &
                   bind(handle, "git_repository_workdir", a.repository_workdir, p) &
                   bind(handle, "git_repository_new", a.repository_new, p) &
                   bind(handle, "git_repository_set_config", a.repository_set_config, p) &
                   bind(handle, "git_repository_free", a.repository_free, p) &
                   bind(handle, "git_config_new", a.config_new, p) &
                   bind(handle, "git_config_free", a.config_free, p) &
                   bind(handle, "git_ignore_add_rule", a.ignore_add_rule, p) &
                   bind(handle, "git_ignore_path_is_ignored", a.ignore_path_is_ignored, p) &
                   bind(handle, "git_patch_from_buffers", a.patch_from_buffers, p) &
                   bind(handle, "git_patch_to_buf", a.patch_to_buf, p) &
                   bind(handle, "git_patch_free", a.patch_free, p) &
                   bind(handle, "git_buf_dispose", a.buf_dispose, p);
  if (!all) return loaded;
  // Never shut down: the library lives as long as the process.
  if (init() < 0) {
    loaded.problem = "git_libgit2_init failed";
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

const Loaded& loaded() {
  static const Loaded once = load();
  return once;
}

}  // namespace

const Libgit2* libgit2() { return loaded().ok ? &loaded().api : nullptr; }

std::string libgit2_problem() { return loaded().problem; }

}  // namespace gpulint

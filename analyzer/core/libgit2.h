#pragma once

// libgit2, loaded the first time it is needed (git's ignore files while walking a folder, and
// `--diff`). Linked into gpulint, it and the libraries it needs in turn (Kerberos, OpenSSL,
// mbedTLS, libssh2, PCRE2) cost every run ~10 ms before main: a program that only prints took
// 14 ms with them and 3 ms without on the development machine, and `gpulint --version` or a run
// on one named file needs none of it.

#include <git2.h>
#include <git2/sys/repository.h>

#include <string>

namespace gpulint {

struct Libgit2 {
  decltype(&::git_repository_open_ext) repository_open_ext;
  decltype(&::git_repository_workdir) repository_workdir;
  decltype(&::git_repository_new) repository_new;
  decltype(&::git_repository_set_config) repository_set_config;
  decltype(&::git_repository_free) repository_free;
  decltype(&::git_config_new) config_new;
  decltype(&::git_config_free) config_free;
  decltype(&::git_ignore_add_rule) ignore_add_rule;
  decltype(&::git_ignore_path_is_ignored) ignore_path_is_ignored;
  decltype(&::git_patch_from_buffers) patch_from_buffers;
  decltype(&::git_patch_to_buf) patch_to_buf;
  decltype(&::git_patch_free) patch_free;
  decltype(&::git_buf_dispose) buf_dispose;
};

// The library, loaded and initialised once for the process (and never unloaded); nullptr when
// it cannot be, and then libgit2_problem() says why.
const Libgit2* libgit2();
std::string libgit2_problem();

}  // namespace gpulint

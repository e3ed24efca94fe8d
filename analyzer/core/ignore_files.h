#pragma once

// `.gitignore` and `.ignore` files, as Ruff (through ripgrep's `ignore` crate) honours them:
// `.gitignore` files, `.git/info/exclude` and git's global excludes file count inside a git
// repository only; `.ignore` files count everywhere, also in folders above the walk's start.
// Matching is libgit2's, so the patterns mean exactly what they mean to git; libgit2 is loaded
// by the first folder that holds `.git` or `.ignore` (core/libgit2.h).

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct git_repository;

namespace gpulint {

struct Libgit2;

class IgnoreFiles {
 public:
  IgnoreFiles();
  ~IgnoreFiles();
  IgnoreFiles(const IgnoreFiles&) = delete;
  IgnoreFiles& operator=(const IgnoreFiles&) = delete;

  // Whether an ignore file covers this file or folder (absolute, lexically normal). The
  // folders above it are found on the way, each looked at once: whether it holds `.git` or
  // `.ignore`.
  bool ignored(const std::filesystem::path& absolute, bool is_directory);
  // Ignore files that could not be read (not regular files), one line each, since the last call.
  std::vector<std::string> take_problems() { return std::exchange(problems_, {}); }

 private:
  // A git repository, or the patterns of one `.ignore` file loaded into an empty in-memory
  // repository, which libgit2 then matches relative to `base`.
  struct Matcher {
    git_repository* repo = nullptr;
    std::filesystem::path base;
    ~Matcher();
  };
  struct Directory {
    std::filesystem::path real;               // canonical, as libgit2 sees the work tree
    const Matcher* git = nullptr;             // the repository it lies in, if any
    std::vector<const Matcher*> dot_ignores;  // `.ignore` files here and above, nearest first
  };

  // libgit2, or nullptr (said once among the problems).
  const Libgit2* git();
  const Directory& directory(const std::filesystem::path& absolute);
  const Matcher* open_repository(const std::filesystem::path& dir);
  const Matcher* load_dot_ignore(const std::filesystem::path& dir);

  std::map<std::filesystem::path, Directory> directories_;
  std::vector<std::unique_ptr<Matcher>> matchers_;
  std::vector<std::string> problems_;
  bool reported_no_libgit2_ = false;
};

}  // namespace gpulint

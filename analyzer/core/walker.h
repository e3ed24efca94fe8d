#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gpulint {

struct WalkResult {
  std::vector<std::string> files;     // sorted, deduplicated
  std::vector<std::string> errors;    // "path: what is wrong"
  std::vector<std::string> warnings;  // "DIR: no Python files found"
};

struct WalkOptions {
  // Honour `.gitignore` (inside a git repository) and `.ignore` files (ignore_files.h).
  bool respect_ignore_files = true;
  // Whether a config file's `exclude` / `extend-exclude` (or the defaults) skips this absolute
  // path; unset: the default excludes.
  std::function<bool(const std::filesystem::path& absolute)> excluded;
  // Paths named on the command line are linted even when excluded or ignored, as Ruff does,
  // unless this is set (pre-commit passes every staged file by name).
  bool force_exclude = false;
};

// Expands the command line's paths: files are taken as given (any extension), directories are
// walked for `.py` files and dependency files (requirements*.txt, pyproject.toml, setup.cfg,
// environment.yml), skipping excluded and ignored files and folders and virtualenvs.
WalkResult collect_files(const std::vector<std::string>& paths, const WalkOptions& options = {});

// The files in order, each once: a path that names a file met before under another path (an
// absolute and a relative path, a folder and a symlink to it) is left out, by device and inode.
std::vector<std::string> distinct_files(const std::vector<std::string>& files);

}  // namespace gpulint

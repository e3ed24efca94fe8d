#pragma once

#include <string>
#include <vector>

namespace gpulint {

struct WalkResult {
  std::vector<std::string> files;     // sorted, deduplicated
  std::vector<std::string> errors;    // "path: what is wrong"
  std::vector<std::string> warnings;  // "DIR: no Python files found"
};

// Expands the command line's paths: files are taken as given (any extension), directories are
// walked for `.py` files and dependency files (requirements*.txt, pyproject.toml, setup.cfg,
// environment.yml), skipping hidden, virtualenv, __pycache__, build and node_modules
// folders.
WalkResult collect_files(const std::vector<std::string>& paths);

}  // namespace gpulint

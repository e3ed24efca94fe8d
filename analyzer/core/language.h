#pragma once

#include <optional>
#include <string_view>

namespace gpulint {

enum class Language { Python, Cpp, Dependencies };

// Dependency files GL304 reads: requirements*.txt, pyproject.toml, setup.cfg,
// environment.yml / environment.yaml.
inline bool is_dependency_file(std::string_view filename) {
  if (filename == "pyproject.toml" || filename == "setup.cfg" || filename == "environment.yml" ||
      filename == "environment.yaml") {
    return true;
  }
  return filename.starts_with("requirements") && filename.ends_with(".txt");
}

// The last component of a path, as std::filesystem::path::filename gives it for a file's path,
// without building a path (it runs for every file linted).
inline std::string_view filename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The language of a file by its name, found in a walk or named directly; none: not ours (a
// file named directly is then read as Python). CUDA C++ (`.cu`, `.cuh`) is C++.
inline std::optional<Language> language_of(std::string_view filename) {
  if (is_dependency_file(filename)) return Language::Dependencies;
  if (filename.ends_with(".py")) return Language::Python;
  for (std::string_view ext : {".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".hxx", ".cu", ".cuh"}) {
    if (filename.ends_with(ext)) return Language::Cpp;
  }
  return std::nullopt;
}

}  // namespace gpulint

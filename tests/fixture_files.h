#pragma once

// The fixture files the test suites run over, and reading them, shared by the Python, C++
// and fixes suites so each lists fixtures the same way.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::testing {

inline const std::filesystem::path& source_dir() {
  static const std::filesystem::path dir(GPULINT_SOURCE_DIR);
  return dir;
}

// Files with `extension` under fixtures/`folder`, relative to the repository root, sorted;
// subfolders named `skip` are left out.
inline std::vector<std::string> fixture_files(std::string_view folder, std::string_view extension,
                                              std::string_view skip = {}) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  const fs::path root = source_dir() / "fixtures" / folder;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return paths;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!skip.empty() && it->is_directory() && it->path().filename() == skip)
      it.disable_recursion_pending();
    if (it->is_regular_file() && it->path().extension() == extension)
      paths.push_back(it->path().lexically_relative(source_dir()).generic_string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace gpulint::testing

#include "analyzer/core/walker.h"

#include "analyzer/core/language.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

namespace gpulint {
namespace fs = std::filesystem;
namespace {

bool skipped_directory(const fs::path& dir) {
  static const std::set<std::string> kSkipped = {"__pycache__", "build",         "node_modules",
                                                 "venv",        "site-packages", "dist"};
  const std::string name = dir.filename().string();
  if (name.size() > 1 && name.front() == '.') return true;  // .git, .venv, .tox, .mypy_cache
  if (kSkipped.count(name)) return true;
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec);  // any virtualenv, whatever its name
}

}  // namespace

WalkResult collect_files(const std::vector<std::string>& paths) {
  WalkResult result;
  std::set<std::string> files;
  for (const std::string& given : paths) {
    std::error_code ec;
    fs::file_status status = fs::status(given, ec);
    if (ec || !fs::exists(status)) {
      result.errors.push_back(given + ": no such file or directory");
      continue;
    }
    if (!fs::is_directory(status)) {
      files.insert(fs::path(given).lexically_normal().string());
      continue;
    }
    size_t before = files.size();
    fs::recursive_directory_iterator it(given, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      result.errors.push_back(given + ": " + ec.message());
      continue;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        result.errors.push_back(it->path().string() + ": " + ec.message());
        break;
      }
      const fs::directory_entry& entry = *it;
      if (entry.is_directory(ec)) {
        if (skipped_directory(entry.path())) it.disable_recursion_pending();
        continue;
      }
      const bool wanted = language_of(entry.path().filename().string()).has_value();
      if (wanted && entry.is_regular_file(ec)) {
        files.insert(entry.path().lexically_normal().string());
      }
    }
    if (files.size() == before) result.warnings.push_back(given + ": no Python files found");
  }
  result.files.assign(files.begin(), files.end());
  return result;
}

}  // namespace gpulint

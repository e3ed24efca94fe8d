#include "analyzer/core/walker.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "analyzer/core/config.h"
#include "analyzer/core/ignore_files.h"
#include "analyzer/core/language.h"

namespace gpulint {
namespace fs = std::filesystem;
namespace {

class Walk {
 public:
  Walk(const WalkOptions& options, WalkResult& result) : options_(options), result_(result) {}

  bool skipped(const fs::path& absolute, bool is_directory) {
    if (options_.excluded ? options_.excluded(absolute) : is_excluded(nullptr, absolute)) {
      return true;
    }
    return options_.respect_ignore_files && ignore_files_.ignored(absolute, is_directory);
  }

  // A named file is skipped only under --force-exclude, and then also when a folder above it
  // (up to the current directory) is.
  bool named_file_skipped(const fs::path& absolute) {
    if (!options_.force_exclude) return false;
    if (skipped(absolute, false)) return true;
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    for (fs::path dir = absolute.parent_path(); dir.has_relative_path() && dir != cwd;
         dir = dir.parent_path()) {
      if (skipped(dir, true)) return true;
    }
    return false;
  }

  void directory(const fs::path& dir, const fs::path& absolute, std::set<std::string>& files) {
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      result_.errors.push_back(dir.string() + ": " + ec.message());
      return;
    }
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) {
        result_.errors.push_back(dir.string() + ": " + ec.message());
        break;
      }
      entries.push_back(*it);
    }
    for (const fs::directory_entry& entry : entries) {
      const fs::path name = entry.path().filename();
      const fs::path entry_absolute = absolute / name;
      if (entry.is_directory(ec)) {
        if (entry.is_symlink(ec)) continue;  // no cycles, and no tree walked twice
        if (fs::exists(entry.path() / "pyvenv.cfg", ec)) continue;  // a virtualenv by any name
        if (skipped(entry_absolute, true)) continue;
        directory(entry.path(), entry_absolute, files);
        continue;
      }
      if (!language_of(name.string()) || !entry.is_regular_file(ec)) continue;
      if (skipped(entry_absolute, false)) continue;
      files.insert(entry.path().lexically_normal().string());
    }
  }

 private:
  const WalkOptions& options_;
  WalkResult& result_;
  IgnoreFiles ignore_files_;
};

}  // namespace

WalkResult collect_files(const std::vector<std::string>& paths, const WalkOptions& options) {
  WalkResult result;
  Walk walk(options, result);
  std::set<std::string> files;
  for (const std::string& given : paths) {
    std::error_code ec;
    fs::file_status status = fs::status(given, ec);
    if (ec || !fs::exists(status)) {
      result.errors.push_back(given + ": no such file or directory");
      continue;
    }
    const fs::path absolute = fs::absolute(given, ec).lexically_normal();
    if (!fs::is_directory(status)) {
      if (!walk.named_file_skipped(absolute))
        files.insert(fs::path(given).lexically_normal().string());
      continue;
    }
    size_t before = files.size();
    walk.directory(given, absolute, files);
    if (files.size() == before) result.warnings.push_back(given + ": no Python files found");
  }
  result.files.assign(files.begin(), files.end());
  return result;
}

}  // namespace gpulint

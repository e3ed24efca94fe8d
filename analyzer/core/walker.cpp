#include "analyzer/core/walker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
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

  void take_ignore_problems() {
    for (std::string& p : ignore_files_.take_problems()) result_.errors.push_back(std::move(p));
  }

  void directory(const fs::path& dir, const fs::path& absolute, std::set<std::string>& files) {
    std::error_code ec;
    // An unreadable folder is an error of the run, as an unreadable file is: its files would
    // otherwise go unchecked without a word.
    fs::directory_iterator it(dir, ec);
    if (ec) {
      result_.errors.push_back(dir.string() + ": cannot be read: " + ec.message());
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
    if (ec.value() == ELOOP) {
      result.errors.push_back(given + ": a symlink loop (or more than 40 symlinks deep)");
      continue;
    }
    if (ec || !fs::exists(status)) {
      const bool dangling = fs::is_symlink(fs::symlink_status(given, ec));
      result.errors.push_back(given + (dangling ? ": a symlink to nothing (its target is missing)"
                                                : ": no such file or directory"));
      continue;
    }
    const fs::path absolute = fs::absolute(given, ec).lexically_normal();
    if (!fs::is_directory(status)) {
      if (!walk.named_file_skipped(absolute))
        files.insert(fs::path(given).lexically_normal().string());
      walk.take_ignore_problems();
      continue;
    }
    size_t before = files.size();
    walk.directory(given, absolute, files);
    walk.take_ignore_problems();
    if (files.size() == before) result.warnings.push_back(given + ": no Python files found");
  }
  result.files.assign(files.begin(), files.end());
  return result;
}

std::vector<std::string> distinct_files(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const std::string& path : files) {
    struct stat st;
    // What cannot be stat'ed is kept, for the reader to say why it cannot be read.
    if (::stat(path.c_str(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    out.push_back(path);
  }
  return out;
}

}  // namespace gpulint

#include "analyzer/core/path_glob.h"

#include <fnmatch.h>

namespace gpulint {
namespace fs = std::filesystem;
namespace {

bool fnmatches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// `**/x` means x at any depth including the top; fnmatch knows only `*`, which needs a `/`.
bool matches_with_globstar(const std::string& pattern, const std::string& text) {
  if (fnmatches(pattern, text)) return true;
  const size_t at = pattern.find("**/");
  if (at == std::string::npos) return false;
  return matches_with_globstar(pattern.substr(0, at) + pattern.substr(at + 3), text);
}

}  // namespace

PathGlob::PathGlob(std::string pattern, const fs::path& root) : pattern_(std::move(pattern)) {
  std::string p = pattern_;
  while (p.size() > 1 && p.back() == '/') p.pop_back();  // `build/` names the folder
  if (p.starts_with("./")) p.erase(0, 2);
  name_ = p;
  absolute_ = fs::path(p).is_absolute() ? p : (root / p).lexically_normal().string();
}

bool PathGlob::matches(const fs::path& absolute) const {
  return matches_with_globstar(name_, absolute.filename().string()) ||
         matches_with_globstar(absolute_, absolute.string());
}

}  // namespace gpulint

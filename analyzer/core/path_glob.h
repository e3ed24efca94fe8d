#pragma once

#include <filesystem>
#include <string>

namespace gpulint {

// A file pattern from a config file (`exclude`, `per-file-ignores`), matched as Ruff matches
// them: against the file's name, or against its absolute path with the pattern taken relative
// to the config file's directory. `*` also crosses `/` (as in Ruff's globs), so `tests/*`
// covers the whole tree below `tests`; a leading `**/` also matches at the top.
class PathGlob {
 public:
  PathGlob(std::string pattern, const std::filesystem::path& root);
  bool matches(const std::filesystem::path& absolute) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;   // as written
  std::string name_;      // matched against the file name
  std::string absolute_;  // matched against the absolute path
};

}  // namespace gpulint

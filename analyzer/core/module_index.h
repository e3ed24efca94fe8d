#pragma once

// Which file of a run an import names, found the way Python's import system would find it
// from the importing file: relative imports from the importer's package, absolute ones from
// the importer's directory or any directory above it (a project root on sys.path).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpulint {

class ModuleIndex {
 public:
  explicit ModuleIndex(const std::vector<std::string>& paths);

  // The index into `paths` of the module `module` (`pkg.utils`, `.utils`, `..data`) that
  // `importer` imports, or -1 when it is not one of the run's files.
  int32_t resolve(const std::string& importer, const std::string& module) const;

 private:
  int32_t find(const std::string& path) const;

  std::unordered_map<std::string, int32_t> by_path_;  // lexically normal path -> index
};

}  // namespace gpulint

#pragma once

// Which file of a run an import names, found the way Python's import system would find it
// from the importing file: relative imports from the importer's package, absolute ones from
// the importer's directory or any directory above it (a project root on sys.path).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gpulint {

class ModuleIndex {
 public:
  explicit ModuleIndex(const std::vector<std::string>& paths);

  // The index into `paths` of the module `module` (`pkg.utils`, `.utils`, `..data`) that
  // `importer` imports, or -1 when it is not one of the run's files. Answers are remembered
  // per importing directory, so this is not thread-safe.
  int32_t resolve(const std::string& importer, const std::string& module);

 private:
  int32_t resolve_vendored(const std::string& importer, const std::string& module);
  int32_t find(const std::string& path) const;
  int32_t search(const std::string& importer, const std::string& module) const;

  std::unordered_map<std::string, int32_t> by_path_;  // lexically normal path -> index
  // Every file and folder name of the run without `.py`: an absolute import whose first
  // component is none of them (`torch.nn`) is not one of the run's files, without a search.
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, int32_t> answers_;  // directory '\0' module -> index
};

}  // namespace gpulint

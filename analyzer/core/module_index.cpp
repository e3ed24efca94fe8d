#include "analyzer/core/module_index.h"

#include <filesystem>

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::string normal(const fs::path& path) { return path.lexically_normal().generic_string(); }

}  // namespace

ModuleIndex::ModuleIndex(const std::vector<std::string>& paths) {
  for (size_t i = 0; i < paths.size(); ++i)
    by_path_.emplace(normal(paths[i]), static_cast<int32_t>(i));
}

int32_t ModuleIndex::find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? -1 : it->second;
}

int32_t ModuleIndex::resolve(const std::string& importer, const std::string& module) const {
  size_t dots = 0;
  while (dots < module.size() && module[dots] == '.') ++dots;
  std::string rest = module.substr(dots);
  if (rest.empty()) return -1;  // `from . import name` names a package's __init__
  for (char& c : rest) {
    if (c == '.') c = '/';
  }
  auto at = [&](const fs::path& base) {
    const int32_t file = find(normal(base / (rest + ".py")));
    return file >= 0 ? file : find(normal(base / rest / "__init__.py"));
  };
  fs::path base = fs::path(importer).parent_path();
  if (dots > 0) {
    // `.utils` is the importer's own package; each further dot goes one package up.
    for (size_t up = 1; up < dots; ++up) base = base.parent_path();
    return at(base);
  }
  const int32_t self = find(normal(importer));
  for (;;) {
    if (int32_t file = at(base); file >= 0 && file != self) return file;
    if (base.empty() || base == base.root_path()) return -1;
    base = base.parent_path();
  }
}

}  // namespace gpulint

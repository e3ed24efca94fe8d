#include "analyzer/core/module_index.h"

#include <filesystem>

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::string normal(const fs::path& path) { return path.lexically_normal().generic_string(); }

}  // namespace

ModuleIndex::ModuleIndex(const std::vector<std::string>& paths) {
  for (size_t i = 0; i < paths.size(); ++i) {
    const fs::path path(normal(paths[i]));
    by_path_.emplace(path.generic_string(), static_cast<int32_t>(i));
    for (const fs::path& part : path) names_.insert(part.stem().string());
  }
}

int32_t ModuleIndex::resolve(const std::string& importer, const std::string& module) {
  if (!module.starts_with('.') && !names_.contains(module.substr(0, module.find('.'))))
    return resolve_vendored(importer, module);
  std::string key = fs::path(importer).parent_path().string();
  key.append(1, '\0').append(module);
  if (auto it = answers_.find(key); it != answers_.end()) return it->second;
  const int32_t found = search(importer, module);
  answers_.emplace(std::move(key), found);
  return found;
}

// Code copied out of a monorepo keeps its imports (`deeplearning.ssl.moco.builder` for the
// run's `moco/builder.py`): the longest tail of two or more components that names a module of
// the run is the one meant. A single component (`torch.utils` -> `utils`) is too common a name
// to guess from.
int32_t ModuleIndex::resolve_vendored(const std::string& importer, const std::string& module) {
  for (size_t dot = module.find('.'); dot != std::string::npos; dot = module.find('.', dot + 1)) {
    const std::string tail = module.substr(dot + 1);
    if (tail.find('.') == std::string::npos) return -1;
    if (names_.contains(tail.substr(0, tail.find('.')))) return resolve(importer, tail);
  }
  return -1;
}

int32_t ModuleIndex::find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? -1 : it->second;
}

int32_t ModuleIndex::search(const std::string& importer, const std::string& module) const {
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
  // The nearest match wins, as the first sys.path entry that has the module would; it may be
  // the importer itself, which the caller ignores.
  for (;;) {
    if (int32_t file = at(base); file >= 0) return file;
    if (base.empty() || base == base.root_path()) return -1;
    base = base.parent_path();
  }
}

}  // namespace gpulint

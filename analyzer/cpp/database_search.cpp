#include "analyzer/cpp/database_search.h"

namespace gpulint::cpp {

namespace fs = std::filesystem;

std::vector<fs::path> compile_database_candidates(const fs::path& file,
                                                  const std::string& explicit_dir) {
  if (!explicit_dir.empty()) return {explicit_dir};
  std::vector<fs::path> candidates;
  std::error_code ec;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "compile_commands.json", ec)) {
      candidates.push_back(dir);
      break;
    }
    if (dir == dir.parent_path()) break;
  }
  if (fs::path cwd = fs::current_path(ec); !ec) candidates.push_back(cwd / "build");
  return candidates;
}

}  // namespace gpulint::cpp

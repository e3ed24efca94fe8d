// Built with GPULINT_WITH_CLANG=OFF: every C++ file is analysed by syntax alone.
#include "analyzer/cpp/resolver.h"

namespace gpulint::cpp {

void set_compile_database_dir(std::string) {}
void plan_clang_run(const std::vector<std::string>&) {}
bool clang_available() { return false; }
std::optional<Resolution> resolve_with_clang(const std::string&, std::string_view) {
  return std::nullopt;
}

}  // namespace gpulint::cpp

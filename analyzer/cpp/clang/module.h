#pragma once

// The Clang front end is a module of its own (libgpulint-clang.so), loaded with dlopen only when
// a C++ file has a compile database: linking libclang-cpp and libLLVM into gpulint cost every
// run ~70 ms of relocations and static initialisers before main, for Python files too. This is
// the table the module hands the loader (analyzer/cpp/clang_loader.cpp). Both sides are built
// together from one tree, so C++ types cross; `abi` and `resolution_size` catch a module left
// over from another build.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/cpp/resolver.h"

namespace gpulint::cpp {

inline constexpr uint32_t kClangModuleAbi = 1;

struct ClangModule {
  uint32_t abi;
  size_t resolution_size;  // sizeof(Resolution) where the module was built
  // resolver.h's functions, with the -p directory (empty: none) passed in.
  void (*plan_run)(const std::vector<std::string>& paths, const std::string& database_dir);
  std::optional<Resolution> (*resolve)(const std::string& path, std::string_view text,
                                       const std::string& database_dir);
};

}  // namespace gpulint::cpp

// The module's one exported symbol.
extern "C" const gpulint::cpp::ClangModule* gpulint_clang_module();

#pragma once

// Where a C++ file's compile database may be: `-p DIR` when given, else the nearest directory
// above the file that holds compile_commands.json, then build/ under the working directory.
// Shared by the Clang module, which loads them, and by the loader, which loads the module only
// when one of them exists.

#include <filesystem>
#include <string>
#include <vector>

namespace gpulint::cpp {

std::vector<std::filesystem::path> compile_database_candidates(const std::filesystem::path& file,
                                                               const std::string& explicit_dir);

}  // namespace gpulint::cpp

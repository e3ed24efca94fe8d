#pragma once

// Files of one run that start with the same #include block under the same flags (the torch
// preamble) share one precompiled header of that block, built once, so torch/torch.h is
// parsed once per run instead of once per file.

#include <string>
#include <vector>

namespace gpulint::cpp {

// The path of a PCH for the leading #include block of `file` (whose text is `text`), built
// with `arguments` (the file's full Clang command line, driver first); empty when the file has
// no such block or the PCH could not be built, and then the file is parsed whole.
std::string shared_preamble(const std::string& file, const std::string& text,
                            const std::vector<std::string>& arguments);

}  // namespace gpulint::cpp

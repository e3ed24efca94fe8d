#pragma once

// Files of one run that start with the same #include block under the same flags (the torch
// preamble) share one precompiled header of that block, built once, so torch/torch.h is
// parsed once per run instead of once per file.

#include <string>
#include <vector>

namespace gpulint::cpp {

// Announces a file the coming run will parse (same arguments as shared_preamble), so that a
// block two or more files share is built into a PCH by the first of them, and a block only
// one file has is never built (a one-file run pays nothing for a PCH it cannot reuse).
void expect_preamble(const std::string& file, const std::string& text,
                     const std::vector<std::string>& arguments);
// Starts a new run's announcements; PCHs already built stay usable.
void forget_expected_preambles();

// The path of a PCH for the leading #include block of `file` (whose text is `text`), built
// with `arguments` (the file's full Clang command line, driver first); empty when the file has
// no such block, when no other file of the run shares it, or when the PCH could not be built,
// and then the file is parsed whole. Files nobody announced build the PCH from the second on.
std::string shared_preamble(const std::string& file, const std::string& text,
                            const std::vector<std::string>& arguments);

}  // namespace gpulint::cpp

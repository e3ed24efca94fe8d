#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "analyzer/core/step_model.h"
#include "analyzer/cpp/resolver.h"

namespace gpulint::cpp {

// Parses LibTorch C++ source with tree-sitter-cpp and lowers it, in one walk, into the step
// model. This is the path for files without a compile database: names are matched as they are
// spelt (`torch::cuda::synchronize`, `.item<float>()`), not resolved, so a `using` alias or a
// macro hides a call. Never throws on bad input: syntax errors become ParseError facts.
// With a Resolution (Clang's names for the file's calls), LibTorch APIs are recognised by what
// they resolve to, and spelling is the fallback only for calls Clang did not resolve.
StepModel build_model(std::string_view text, const Resolution* resolution = nullptr);

// The engine's entry: Clang when a compile database covers `path` (resolver.h), else syntax.
// A Clang error becomes the file's first ParseError (GL000), and analysis goes on.
StepModel build_model_for_file(const std::string& path, std::string_view text);

// Files of this run analysed by syntax alone, for the CLI's once-per-run note.
extern std::atomic<size_t> syntax_only_files;
// Files of this run where tree-sitter-cpp met syntax it could not read (ParseError::in_source
// false), for the same note.
extern std::atomic<size_t> syntax_recovered_files;

}  // namespace gpulint::cpp

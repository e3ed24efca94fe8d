#pragma once

#include <string_view>

#include "analyzer/core/step_model.h"

namespace gpulint::cpp {

// Parses LibTorch C++ source with tree-sitter-cpp and lowers it, in one walk, into the step
// model. This is the path for files without a compile database: names are matched as they are
// spelt (`torch::cuda::synchronize`, `.item<float>()`), not resolved, so a `using` alias or a
// macro hides a call. Never throws on bad input: syntax errors become ParseError facts.
StepModel build_model(std::string_view text);

}  // namespace gpulint::cpp

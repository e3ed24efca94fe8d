#pragma once

#include <string_view>

#include "analyzer/core/step_model.h"

namespace gpulint::python {

// Parses Python source once with tree-sitter and lowers it, in one walk, into the step model.
// Never throws on bad input: syntax errors become ParseError facts and the rest is analysed.
StepModel build_model(std::string_view text);

}  // namespace gpulint::python

#pragma once

#include <string_view>

#include "analyzer/core/step_model.h"

namespace gpulint::python {

// Parses Python source once with tree-sitter and lowers it, in one walk, into the step model.
// Never throws on bad input: syntax errors become ParseError facts and the rest is analysed.
// `inbound` carries what the other files of the run found about this one (the engine links).
StepModel build_model(std::string_view text, const Inbound& inbound = {});

}  // namespace gpulint::python

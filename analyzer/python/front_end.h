#pragma once

#include <memory>
#include <string_view>

#include "analyzer/core/step_model.h"
#include "analyzer/flat_tree.h"

namespace gpulint::python {

// Parses Python source once with tree-sitter and lowers it, in one walk, into the step model.
// Never throws on bad input: syntax errors become ParseError facts and the rest is analysed.
// `inbound` carries what the other files of the run found about this one (the engine links).
StepModel build_model(std::string_view text, const Inbound& inbound = {});

// The same in two steps, so that a batch of files can be parsed one after another and then
// lowered one after another (engine.h says why). The tree is the parse of `text`, which must
// outlive it; build_model walks it and leaves it as it was.
std::unique_ptr<FlatTree> parse(std::string_view text);
StepModel build_model(std::string_view text, const FlatTree& tree, const Inbound& inbound);

}  // namespace gpulint::python

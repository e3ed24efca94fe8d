#pragma once

// How a large Python file is parsed a part at a time: tree-sitter's tree of a whole file costs
// 35 to 60 bytes of memory per byte of source, so a file of many megabytes is parsed in parts
// of about `part_bytes` (analyzer/flat_tree.h), each a run of whole top-level statements, or a
// run of the elements of one long bracketed list (a data literal, a call's arguments).

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/syntax_tree.h"

namespace gpulint::python {

// The parts of `text`, in order; none (parse it whole) when it is no longer than `part_bytes`.
//
// Statements are cut at the start of a line at column 0 that continues no statement (no
// `else:`, `except:`... after an indented block, nothing after a decorator, a backslash or an
// open bracket or string), and after a `;` between simple statements of a line that starts at
// column 0. A bracket left open ends at a line that starts with `def`, `class` or `import` at
// column 0.
//
// A simple statement longer than `part_bytes` is cut inside its outermost long bracket, after
// commas between its elements: each piece is parsed as the statement with only that piece
// between the brackets (TextPart::Kind).
std::vector<TextPart> text_parts(std::string_view text, uint32_t part_bytes);

}  // namespace gpulint::python

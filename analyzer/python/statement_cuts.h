#pragma once

// Where a large Python file can be parsed in parts: tree-sitter's tree of a whole file costs 35
// to 55 bytes of memory per byte of source, so a file of many megabytes is parsed a part at a
// time (analyzer/flat_tree.h), each part a run of whole top-level statements.

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/syntax_tree.h"

namespace gpulint::python {

// Places between top-level statements, about `part_bytes` apart, in order; none when the text is
// no longer than that. A place is the start of a line at column 0 that continues no statement (no
// `else:`, `except:`... after an indented block, nothing after a decorator, a backslash or an
// open bracket or string), or the place after a `;` between simple statements of a line that
// starts at column 0. A bracket left open ends at a line that starts with `def`, `class` or
// `import` at column 0. A statement longer than `part_bytes` is never cut.
std::vector<TextPlace> statement_cuts(std::string_view text, uint32_t part_bytes);

}  // namespace gpulint::python

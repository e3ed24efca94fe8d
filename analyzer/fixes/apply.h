#pragma once

// Applying findings' fixes to a file's text, and showing what changes: pure functions, no I/O.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/diagnostic.h"

namespace gpulint {

struct FixedText {
  std::string text;
  size_t applied = 0;  // fixes applied
};

// Applies the fixes of `diagnostics` (all of one file whose text is `text`): the safe ones,
// and the unsafe ones too when `unsafe`. A fix whose edits overlap an edit already taken (or
// each other) is left for the next round, as Ruff does: the file is linted again and the
// fix, if still wanted, comes back against the new text.
FixedText apply_fixes(std::string_view text, const std::vector<const Diagnostic*>& diagnostics,
                      bool unsafe);

// A unified diff of `before` and `after` (`--- path` / `+++ path` headers, three lines of
// context), empty when they are equal, or when libgit2 cannot be loaded (core/libgit2.h:
// the caller says so).
std::string unified_diff(const std::string& path, std::string_view before, std::string_view after);

}  // namespace gpulint

#pragma once

// "Did you mean": the known word closest to a mistyped one (a flag, a rule code, a command).

#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

// The candidate nearest to `word` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours, ignoring case), if it is near enough to be the word meant: at most one
// edit for words of up to four characters, two for longer ones. Empty when none is.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// `; did you mean `X`?` for the closest candidate, or empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpulint

#pragma once

// A one-line picture of a percent series in the terminal, in Unicode block characters.

#include <string>
#include <vector>

namespace gpulint::system {

// At most `width` characters (UTF-8, three bytes each): each one is the mean of its share of
// the samples, from ▁ (0%) to █ (100%); a stretch with no reading is a space.
std::string sparkline(const std::vector<double>& percent, size_t width);

}  // namespace gpulint::system

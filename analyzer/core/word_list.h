#pragma once

// Whether a name is one of a fixed list of words, the test behind the API tables of both front
// ends, which run it for every call and attribute they meet.

#include <array>
#include <cstddef>
#include <string_view>

namespace gpulint {

// Lengths and first bytes are compared before the bytes: most names asked match no word, and
// settle there without a call of memcmp.
template <size_t N>
constexpr bool one_of(std::string_view s, const std::array<std::string_view, N>& words) {
  for (std::string_view w : words) {
    if (w.size() == s.size() && (s.empty() || w[0] == s[0]) && w == s) return true;
  }
  return false;
}

}  // namespace gpulint

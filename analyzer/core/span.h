#pragma once

#include <cstdint>

namespace gpulint {

// A half-open byte range [begin, end) in one source file.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;

  friend bool operator==(const Span&, const Span&) = default;
  bool contains(const Span& other) const { return begin <= other.begin && other.end <= end; }
};

}  // namespace gpulint

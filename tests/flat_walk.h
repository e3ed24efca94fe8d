#pragma once

// A flat tree as a list of entries, depth first: what the flat-tree tests and the parts fuzzer
// compare against a cursor walk or against another flat tree.

#include <cstdint>
#include <vector>

#include "analyzer/flat_tree.h"

namespace gpulint::testing {

struct FlatEntry {
  TSSymbol symbol;
  uint32_t start, end, depth;
  TSFieldId field;
  bool named, missing, has_error;
  bool operator==(const FlatEntry&) const = default;
};

// Depth-first through first_child / next_sibling; false when a child's parent link is wrong.
inline bool flat_walk(Node n, uint32_t depth, std::vector<FlatEntry>& out) {
  out.push_back(
      {n.symbol(), n.start(), n.end(), depth, n.field(), n.named(), n.missing(), n.has_error()});
  bool linked = true;
  for (Node c = n.first_child(); !c.null(); c = c.next_sibling()) {
    linked = c.parent() == n && linked;
    linked = flat_walk(c, depth + 1, out) && linked;
  }
  return linked;
}

}  // namespace gpulint::testing

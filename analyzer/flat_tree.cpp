#include "analyzer/flat_tree.h"

#include <new>

namespace gpulint {

const char* Node::type() const { return ts_language_symbol_name(tree_->language_, symbol()); }

Node Node::named_child(uint32_t index) const {
  for (Node c = first_child(); !c.null(); c = c.next_sibling()) {
    if (c.named() && index-- == 0) return c;
  }
  return {};
}

uint32_t Node::named_child_count() const {
  uint32_t count = 0;
  for (Node c = first_child(); !c.null(); c = c.next_sibling()) count += c.named();
  return count;
}

FlatTree::FlatTree(SyntaxTree tree, const TSLanguage* language) : language_(language) {
  if (!gpulint_flatten(tree.release(), &flat_)) throw std::bad_alloc();
}

FlatTree::~FlatTree() { gpulint_flat_tree_free(&flat_); }

}  // namespace gpulint

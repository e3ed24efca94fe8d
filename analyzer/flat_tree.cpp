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
  if (!gpulint_flatten(tree.release(), &flat_)) {
    gpulint_flat_tree_free(&flat_);
    throw std::bad_alloc();
  }
}

FlatTree::FlatTree(const TSLanguage* language, std::string_view text,
                   std::span<const TextPlace> cuts)
    : language_(language) {
  for (size_t i = 0; i <= cuts.size(); ++i) {
    SyntaxTree tree;
    if (cuts.empty()) {
      tree = parse_tree(language, text);
    } else {
      // The last part runs to the end of the text, whose point tree-sitter need not be told.
      const TextPlace from = i == 0 ? TextPlace{0, {0, 0}} : cuts[i - 1];
      const TSRange part =
          i < cuts.size() ? TSRange{from.point, cuts[i].point, from.byte, cuts[i].byte}
                          : TSRange{from.point, {UINT32_MAX, UINT32_MAX}, from.byte, UINT32_MAX};
      tree = parse_tree(language, text, &part);
    }
    if (!tree) {
      flat_.size = 0;  // the parser gave up: no root
      return;
    }
    if (!(flat_.size == 0 ? gpulint_flatten : gpulint_flatten_append)(tree.release(), &flat_)) {
      gpulint_flat_tree_free(&flat_);
      throw std::bad_alloc();
    }
  }
}

FlatTree::~FlatTree() { gpulint_flat_tree_free(&flat_); }

}  // namespace gpulint

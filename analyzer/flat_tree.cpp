#include "analyzer/flat_tree.h"

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

FlatTree::FlatTree(const TSTree* tree, const TSLanguage* language) : language_(language) {
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  auto add = [&](uint32_t parent) {
    const TSNode n = ts_tree_cursor_current_node(&cursor);
    const uint8_t flags = (ts_node_is_named(n) ? kNamed : 0) |
                          (ts_node_is_missing(n) ? kMissing : 0) |
                          (ts_node_has_error(n) ? kHasError : 0);
    nodes_.push_back({ts_node_start_byte(n), ts_node_end_byte(n), parent, kNone, kNone,
                      ts_node_symbol(n), ts_tree_cursor_current_field_id(&cursor), flags});
    return static_cast<uint32_t>(nodes_.size() - 1);
  };
  // Iterative, so nesting depth costs no stack.
  uint32_t current = add(kNone);
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      const uint32_t child = add(current);
      nodes_[current].first_child = child;
      current = child;
      continue;
    }
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        const uint32_t sibling = add(nodes_[current].parent);
        nodes_[current].next_sibling = sibling;
        current = sibling;
        break;
      }
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return;
      }
      current = nodes_[current].parent;
    }
  }
}

}  // namespace gpulint

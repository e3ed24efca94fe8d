#pragma once

// A parse copied into one array (analyzer/flatten.h). The front end's walk asks each node for
// its fields, children and parent many times; tree-sitter's node API answers a field lookup by
// scanning the node's children through the tree and a parent lookup by descending from the
// root, while the array answers each from memory the walk has just touched.

#include <tree_sitter/api.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "analyzer/flatten.h"
#include "analyzer/syntax_tree.h"

namespace gpulint {

class FlatTree;

// A node of a FlatTree, or null (default). Cheap to copy; valid while its tree lives.
class Node {
 public:
  Node() = default;

  bool null() const { return tree_ == nullptr; }
  inline TSSymbol symbol() const;
  inline uint32_t start() const;
  inline uint32_t end() const;
  inline bool named() const;
  inline bool missing() const;
  inline bool error() const;       // an ERROR node
  inline bool has_error() const;   // an ERROR or missing node inside
  inline TSFieldId field() const;  // the field this node fills in its parent; 0 for none
  const char* type() const;

  inline Node parent() const;
  inline Node first_child() const;
  inline Node next_sibling() const;
  inline Node child_by_field(TSFieldId field) const;
  Node named_child(uint32_t index) const;
  uint32_t named_child_count() const;

  bool operator==(const Node& other) const = default;

 private:
  friend class FlatTree;
  Node(const FlatTree* tree, uint32_t index) : tree_(tree), index_(index) {}

  const FlatTree* tree_ = nullptr;
  uint32_t index_ = 0;
};

class FlatTree {
 public:
  // Consumes the parse: it is deleted while it is copied. Throws std::bad_alloc when memory runs
  // out.
  FlatTree(SyntaxTree tree, const TSLanguage* language);
  // Parses `text` a part at a time (all of it at once when `parts` is empty), each part copied
  // and freed before the next is parsed: the text's tree never exists whole. The pieces of a
  // statement cut inside a list (TextPart::Head, Piece) give one list, as a whole parse
  // would; a piece that does not parse as a run of its elements has the statement parsed whole.
  // A syntax error is recovered from within its part. The root is null when the parser gives up.
  FlatTree(const TSLanguage* language, std::string_view text, std::span<const TextPart> parts);
  ~FlatTree();
  FlatTree(const FlatTree&) = delete;
  FlatTree& operator=(const FlatTree&) = delete;

  Node root() const { return flat_.size == 0 ? Node{} : Node(this, 0); }
  uint32_t size() const { return flat_.size; }

 private:
  friend class Node;
  static constexpr uint32_t kNone = GPULINT_FLAT_NONE;
  static constexpr uint8_t kNamed = GPULINT_FLAT_NAMED, kMissing = GPULINT_FLAT_MISSING,
                           kHasError = GPULINT_FLAT_HAS_ERROR;

  // Copies a parse to the end of the array (null: the parser gave up, and the root is null).
  void append(SyntaxTree tree);
  [[noreturn]] void throw_out_of_memory();
  const GpulintFlatNode& entry(uint32_t index) const { return flat_.nodes[index]; }
  Node at(uint32_t index) const { return index == kNone ? Node{} : Node(this, index); }

  GpulintFlatTree flat_{};
  const TSLanguage* language_;
};

inline TSSymbol Node::symbol() const { return tree_->entry(index_).symbol; }
inline uint32_t Node::start() const { return tree_->entry(index_).start; }
inline uint32_t Node::end() const { return tree_->entry(index_).end; }
inline bool Node::named() const { return tree_->entry(index_).flags & FlatTree::kNamed; }
inline bool Node::missing() const { return tree_->entry(index_).flags & FlatTree::kMissing; }
inline bool Node::error() const { return symbol() == static_cast<TSSymbol>(-1); }
inline bool Node::has_error() const { return tree_->entry(index_).flags & FlatTree::kHasError; }
inline TSFieldId Node::field() const { return tree_->entry(index_).field; }
inline Node Node::parent() const { return tree_->at(tree_->entry(index_).parent); }
inline Node Node::first_child() const { return tree_->at(tree_->entry(index_).first_child); }
inline Node Node::next_sibling() const { return tree_->at(tree_->entry(index_).next_sibling); }

inline Node Node::child_by_field(TSFieldId field) const {
  for (uint32_t i = tree_->entry(index_).first_child; i != FlatTree::kNone;
       i = tree_->entry(i).next_sibling) {
    if (tree_->entry(i).field == field) return Node(tree_, i);
  }
  return {};
}

}  // namespace gpulint

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
  if (!gpulint_flatten(tree.release(), &flat_)) throw_out_of_memory();
}

namespace {

// The node a bracket token at `bracket` belongs to in `tree` (a list, a call's argument list, a
// subscript...), with the indices of that token and of the child at `close`; none when the
// parse put them elsewhere.
struct ListNodes {
  uint32_t list = GPULINT_FLAT_NONE, open = GPULINT_FLAT_NONE, close = GPULINT_FLAT_NONE;
};
ListNodes find_list(const GpulintFlatTree& tree, uint32_t from, uint32_t bracket, uint32_t close) {
  ListNodes out;
  for (uint32_t i = from; i < tree.size; ++i) {
    const GpulintFlatNode& n = tree.nodes[i];
    if (n.start == bracket && n.end == bracket + 1 && !(n.flags & GPULINT_FLAT_NAMED)) {
      out.open = i;
      out.list = n.parent;
      break;
    }
  }
  if (out.list == GPULINT_FLAT_NONE) return {};
  for (uint32_t c = out.open; c != GPULINT_FLAT_NONE; c = tree.nodes[c].next_sibling) {
    if (tree.nodes[c].start == close) {
      out.close = c;
      return out;
    }
  }
  return {};
}

// A part's tree, flattened on its own (a piece, whose elements are then spliced in).
struct OwnedFlat {
  GpulintFlatTree tree{};
  ~OwnedFlat() { gpulint_flat_tree_free(&tree); }
};

}  // namespace

FlatTree::FlatTree(const TSLanguage* language, std::string_view text,
                   std::span<const TextPart> parts)
    : language_(language) {
  if (parts.empty()) {
    append(parse_tree(language, text));
    return;
  }
  // Where the statement being cut inside its list began in the copy, to start it again whole
  // when a piece does not parse as one.
  uint32_t statement_size = 0, statement_last_child = GPULINT_FLAT_NONE;
  ListNodes list;     // the head's, in the copy
  uint32_t prev = 0;  // the list's child the next piece's elements follow
  for (size_t i = 0; i < parts.size(); ++i) {
    // The array for the whole text, as the first part predicts it: grown half as much again
    // each time it fills, it would hold up to half again the nodes it needs, and two arrays at
    // once while one is copied to the other. A text whose later parts are denser grows it so.
    if (i == 1 && flat_.size > 0) {
      const double predicted = 1.05 * flat_.size * text.size() / parts[0].end();
      if (predicted < UINT32_MAX && !gpulint_flat_tree_reserve(&flat_, predicted))
        throw_out_of_memory();
    }
    const TextPart& part = parts[i];
    const std::span<const TSRange> ranges(part.ranges, part.count);
    if (part.kind == TextPart::Kind::Statements) {
      append(parse_tree(language, text, ranges));
      if (flat_.size == 0) return;  // the parser gave up
      continue;
    }
    const uint32_t close = part.ranges[part.count - 1].start_byte;
    bool whole = false;
    if (part.kind == TextPart::Kind::Head) {
      statement_size = flat_.size;
      statement_last_child = flat_.root_last_child;
      SyntaxTree tree = parse_tree(language, text, ranges);
      whole = !tree || ts_node_has_error(ts_tree_root_node(tree.get()));
      if (!whole) {
        append(std::move(tree));
        list = find_list(flat_, statement_size, part.bracket, close);
        whole = list.list == GPULINT_FLAT_NONE;
        if (!whole) {
          prev = list.open;
          for (uint32_t c = list.open; flat_.nodes[c].next_sibling != list.close;)
            prev = c = flat_.nodes[c].next_sibling;
        }
      }
    } else {
      SyntaxTree tree = parse_tree(language, text, ranges);
      whole = !tree || ts_node_has_error(ts_tree_root_node(tree.get()));
      if (!whole) {
        OwnedFlat piece;
        if (!gpulint_flatten(tree.release(), &piece.tree)) throw_out_of_memory();
        const ListNodes own = find_list(piece.tree, 0, part.bracket, close);
        whole = own.list == GPULINT_FLAT_NONE;
        // The piece's own elements: the list's children from where they start.
        uint32_t first = own.open;
        while (!whole && first != own.close && piece.tree.nodes[first].start < part.elements)
          first = piece.tree.nodes[first].next_sibling;
        if (!whole) {
          prev = gpulint_flat_tree_splice(&flat_, list.list, prev, list.close, &piece.tree, first,
                                          own.close);
          if (prev == GPULINT_FLAT_NONE) throw_out_of_memory();
        }
      }
    }
    if (whole) {
      // A piece that is no run of the list's elements (a comma of a lambda's parameters, a
      // syntax error): the statement is parsed whole after all.
      flat_.size = statement_size;
      flat_.root_last_child = statement_last_child;
      const TSRange statement{part.ranges[0].start_point, part.ranges[part.count - 1].end_point,
                              part.begin(), part.end()};
      append(parse_tree(language, text, std::span<const TSRange>(&statement, 1)));
      if (flat_.size == 0) return;
      while (i + 1 < parts.size() && parts[i + 1].kind == TextPart::Kind::Piece) ++i;
    }
  }
}

void FlatTree::append(SyntaxTree tree) {
  if (!tree) {
    flat_.size = 0;  // the parser gave up: no root
    return;
  }
  if (!(flat_.size == 0 ? gpulint_flatten : gpulint_flatten_append)(tree.release(), &flat_))
    throw_out_of_memory();
}

void FlatTree::throw_out_of_memory() {
  gpulint_flat_tree_free(&flat_);
  throw std::bad_alloc();
}

FlatTree::~FlatTree() { gpulint_flat_tree_free(&flat_); }

}  // namespace gpulint

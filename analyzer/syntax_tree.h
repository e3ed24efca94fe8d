#pragma once

// One tree-sitter parse, owned: what every tree-sitter front end starts from.

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace gpulint {

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using SyntaxTree = std::unique_ptr<TSTree, TreeDeleter>;

// A place in a text: its byte offset, and its row and byte column as tree-sitter counts them.
struct TextPlace {
  uint32_t byte;
  TSPoint point;
};

// A part of a text that is parsed on its own (the ranges given to tree-sitter as included
// ranges, so positions stay the text's).
struct TextPart {
  enum class Kind {
    Statements,  // a run of whole statements: one range
    // A statement cut inside a long bracketed list. Its head is the statement with the list's
    // first piece (two ranges: to the end of that piece, and from the closing bracket on); each
    // further piece is the statement with only that piece between the brackets (three
    // ranges: the middle one starts with the element before the piece, whose parse gives the
    // piece's elements the context they have in the whole list), and its elements join the
    // head's list.
    Head,
    Piece,
  };
  Kind kind = Kind::Statements;
  uint32_t count = 0;  // ranges used
  TSRange ranges[3];
  uint32_t bracket = 0;   // Head, Piece: the opening bracket's byte
  uint32_t elements = 0;  // Piece: where its own elements start (the element before is context)

  uint32_t begin() const { return ranges[0].start_byte; }
  uint32_t end() const { return ranges[count - 1].end_byte; }
};

// Parses `text` with `language`, or only the `ranges` of it when given (included ranges:
// positions stay the whole text's); null when the parser gives up.
inline SyntaxTree parse_tree(const TSLanguage* language, std::string_view text,
                             std::span<const TSRange> ranges = {}) {
  struct ParserDeleter {
    void operator()(TSParser* parser) const { ts_parser_delete(parser); }
  };
  // One parser per thread and language, kept between files, as the parse-only benchmark floor
  // keeps its own: a new one would allocate its stack and node pools again for every file.
  struct KeptParser {
    const TSLanguage* language = nullptr;
    std::unique_ptr<TSParser, ParserDeleter> parser;
    bool ranged = false;  // included ranges are set
  };
  thread_local KeptParser kept[2];
  KeptParser* slot =
      kept[0].language == language || kept[0].language == nullptr ? &kept[0] : &kept[1];
  if (slot->language != language) {
    if (!slot->parser) slot->parser.reset(ts_parser_new());
    ts_parser_set_language(slot->parser.get(), language);
    slot->language = language;
  }
  if (!ranges.empty() || slot->ranged) {
    ts_parser_set_included_ranges(slot->parser.get(), ranges.data(),
                                  static_cast<uint32_t>(ranges.size()));
    slot->ranged = !ranges.empty();
  }
  TSTree* tree = ts_parser_parse_string(slot->parser.get(), nullptr, text.data(),
                                        static_cast<uint32_t>(text.size()));
  // A parse that gave up leaves its state behind, which the next file must not resume.
  if (tree == nullptr) ts_parser_reset(slot->parser.get());
  return SyntaxTree(tree);
}

}  // namespace gpulint

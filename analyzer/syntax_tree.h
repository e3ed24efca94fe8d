#pragma once

// One tree-sitter parse, owned: what every tree-sitter front end starts from.

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
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

// Parses `text` with `language`, or only `part` of it (a parse of included ranges: positions
// stay the whole text's); null when the parser gives up.
inline SyntaxTree parse_tree(const TSLanguage* language, std::string_view text,
                             const TSRange* part = nullptr) {
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
  if (part != nullptr || slot->ranged) {
    ts_parser_set_included_ranges(slot->parser.get(), part, part == nullptr ? 0 : 1);
    slot->ranged = part != nullptr;
  }
  TSTree* tree = ts_parser_parse_string(slot->parser.get(), nullptr, text.data(),
                                        static_cast<uint32_t>(text.size()));
  // A parse that gave up leaves its state behind, which the next file must not resume.
  if (tree == nullptr) ts_parser_reset(slot->parser.get());
  return SyntaxTree(tree);
}

}  // namespace gpulint

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

// Parses `text` with `language`; null when the parser gives up.
inline SyntaxTree parse_tree(const TSLanguage* language, std::string_view text) {
  struct ParserDeleter {
    void operator()(TSParser* parser) const { ts_parser_delete(parser); }
  };
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  ts_parser_set_language(parser.get(), language);
  return SyntaxTree(ts_parser_parse_string(parser.get(), nullptr, text.data(),
                                           static_cast<uint32_t>(text.size())));
}

}  // namespace gpulint

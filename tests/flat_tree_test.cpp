// The flat tree reads tree-sitter's private subtree layout (analyzer/flatten.c), so a runtime
// upgrade could break it silently. It must give exactly the nodes, fields and links a
// TSTreeCursor walk gives, on every Python fixture and on broken input.

#include "analyzer/flat_tree.h"

#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <string>
#include <vector>

#include "analyzer/syntax_tree.h"
#include "tests/fixture_files.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint {
namespace {

struct Entry {
  TSSymbol symbol;
  uint32_t start, end, depth;
  TSFieldId field;
  bool named, missing, has_error;
  bool operator==(const Entry&) const = default;
};

void PrintTo(const Entry& e, std::ostream* os) {
  *os << "{symbol " << e.symbol << ", bytes " << e.start << "-" << e.end << ", depth " << e.depth
      << ", field " << e.field << ", named " << e.named << ", missing " << e.missing
      << ", has_error " << e.has_error << "}";
}

std::vector<Entry> cursor_walk(const TSTree* tree) {
  std::vector<Entry> out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  uint32_t depth = 0;
  for (;;) {
    const TSNode n = ts_tree_cursor_current_node(&cursor);
    out.push_back({ts_node_symbol(n), ts_node_start_byte(n), ts_node_end_byte(n), depth,
                   ts_tree_cursor_current_field_id(&cursor), ts_node_is_named(n),
                   ts_node_is_missing(n), ts_node_has_error(n)});
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return out;
      }
      --depth;
    }
  }
}

// Depth-first through first_child / next_sibling, checking each child's parent link.
void flat_walk(Node n, uint32_t depth, std::vector<Entry>& out) {
  out.push_back(
      {n.symbol(), n.start(), n.end(), depth, n.field(), n.named(), n.missing(), n.has_error()});
  for (Node c = n.first_child(); !c.null(); c = c.next_sibling()) {
    EXPECT_EQ(c.parent(), n);
    flat_walk(c, depth + 1, out);
  }
}

// The copy deletes the tree it copies: a tree of its own (a second parse of the same text) is
// freed as it goes, a shared one (ts_tree_copy) is left to its other owner, whose cursor walk
// then reads it.
void expect_same_walk(const std::string& text, const std::string& what) {
  const SyntaxTree tree = parse_tree(tree_sitter_python(), text);
  ASSERT_TRUE(tree) << what;
  const std::vector<Entry> expected = cursor_walk(tree.get());
  for (const bool shared : {false, true}) {
    SyntaxTree copied =
        shared ? SyntaxTree(ts_tree_copy(tree.get())) : parse_tree(tree_sitter_python(), text);
    const FlatTree flat(std::move(copied), tree_sitter_python());
    std::vector<Entry> walked;
    flat_walk(flat.root(), 0, walked);
    EXPECT_TRUE(flat.root().parent().null()) << what;
    EXPECT_EQ(walked.size(), flat.size()) << what;
    EXPECT_EQ(walked, expected) << what << (shared ? " (shared tree)" : "");
  }
  EXPECT_EQ(cursor_walk(tree.get()), expected) << what;
}

TEST(FlatTree, MatchesACursorWalkOnEveryPythonFixture) {
  const std::vector<std::string> files = testing::fixture_files("python", ".py");
  ASSERT_GT(files.size(), 100u);
  for (const std::string& path : files) {
    expect_same_walk(testing::read_file(testing::source_dir() / path), path);
  }
}

TEST(FlatTree, MatchesACursorWalkOnBrokenInput) {
  for (const std::string text : {
           "def f(:\n  return\n",        // an ERROR node
           "for x in loader\n  pass\n",  // a missing `:`
           "x = (1,\n",                  // unclosed at the end of the file
           "\xff\xfe\x00 = 1\n",         // not UTF-8
           "",                           // nothing at all
       }) {
    expect_same_walk(text, "input: " + text);
  }
}

TEST(FlatTree, FieldLookupFindsTheNamedChild) {
  const std::string text = "loss = model(x).mean()\n";
  const FlatTree flat(parse_tree(tree_sitter_python(), text), tree_sitter_python());
  const TSLanguage* lang = tree_sitter_python();
  const TSFieldId right = ts_language_field_id_for_name(lang, "right", 5);
  const TSFieldId function = ts_language_field_id_for_name(lang, "function", 8);
  const Node assignment = flat.root().named_child(0).named_child(0);
  ASSERT_STREQ(assignment.type(), "assignment");
  const Node call = assignment.child_by_field(right);
  ASSERT_STREQ(call.type(), "call");
  const Node callee = call.child_by_field(function);
  EXPECT_EQ(text.substr(callee.start(), callee.end() - callee.start()), "model(x).mean");
  EXPECT_TRUE(call.child_by_field(right).null());
}

}  // namespace
}  // namespace gpulint

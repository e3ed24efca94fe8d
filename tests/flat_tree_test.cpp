// The flat tree reads tree-sitter's private subtree layout (analyzer/flatten.c), so a runtime
// upgrade could break it silently. It must give exactly the nodes, fields and links a
// TSTreeCursor walk gives, on every Python fixture and on broken input.

#include "analyzer/flat_tree.h"

#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/python/text_parts.h"
#include "analyzer/syntax_tree.h"
#include "tests/fixture_files.h"
#include "tests/flat_walk.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint {
namespace {

using Entry = testing::FlatEntry;

}  // namespace

namespace testing {
void PrintTo(const Entry& e, std::ostream* os) {
  *os << "{symbol " << e.symbol << ", bytes " << e.start << "-" << e.end << ", depth " << e.depth
      << ", field " << e.field << ", named " << e.named << ", missing " << e.missing
      << ", has_error " << e.has_error << "}";
}
}  // namespace testing

namespace {

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
void walk_checked(Node n, std::vector<Entry>& out) {
  EXPECT_TRUE(testing::flat_walk(n, 0, out)) << "a child's parent link is wrong";
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
    walk_checked(flat.root(), walked);
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

// A large file is parsed a part at a time, cut between top-level statements and inside long
// lists: the copy of a text without errors must be the one a parse of the whole text gives.
// With parts of one byte every statement is a part of its own and every list with commas is
// cut after each comma, so each place text_parts finds is tried.
std::vector<Entry> walk_in_parts(const std::string& text) {
  const FlatTree flat(tree_sitter_python(), text, python::text_parts(text, 1));
  std::vector<Entry> walked;
  walk_checked(flat.root(), walked);
  EXPECT_EQ(walked.size(), flat.size());
  return walked;
}

TEST(FlatTree, PartsCopyAsTheWholeParseOnEveryPythonFixture) {
  size_t parts = 0, pieces = 0, compared = 0;
  for (const std::string& path : testing::fixture_files("python", ".py")) {
    const std::string text = testing::read_file(testing::source_dir() / path);
    const SyntaxTree tree = parse_tree(tree_sitter_python(), text);
    const std::vector<Entry> whole = cursor_walk(tree.get());
    const std::vector<Entry> walked = walk_in_parts(text);
    // A syntax error is recovered from within its part (below); it is found either way.
    ASSERT_FALSE(walked.empty()) << path;
    EXPECT_EQ(walked.front().has_error, whole.front().has_error) << path;
    if (whole.front().has_error) continue;
    EXPECT_EQ(walked, whole) << path;
    for (const TextPart& part : python::text_parts(text, 1)) {
      ++parts;
      pieces += part.kind == TextPart::Kind::Piece;
    }
    ++compared;
  }
  EXPECT_GT(compared, 200u);
  EXPECT_GT(parts, 1000u);  // the fixtures are cut in many places, not parsed whole
  EXPECT_GT(pieces, 1000u);
}

TEST(FlatTree, ListPiecesJoinAsTheWholeParse) {
  for (const std::string text : {
           "x = [1, 2, 3]\n",
           "x = [1, 2, 3,]  # trailing comma\n",
           "x = [\n    1,  # one\n    2,\n    3\n]\ny = 4\n",
           "d = {'a': 1, 'b': [2, 3], **e}\n",
           "s = {1, 2}\n",
           "f(a, b=1, *c, **d)\n",
           "m = np.array([[1, 2], [3, 4], [5, 6]], dtype=float)\n",
           "t = (1, 2)\n",
           "v = x[1, 2:3]\n",
           "g = f(lambda a, b: a + b, 1)\n",  // a lambda's parameters: the statement whole
           "e = {k: v for k, v in items}\n",  // a comprehension's targets: whole too
           "h = f(x for x in (1, 2))\n",
           "a = 1; b = [1, 2]; c = 3\n",
           "e = [m.w, *m.v.p()]\n",  // a splat parses otherwise as a first element
           // tree-sitter reads on after `y.`
           // (fuzz/regressions/parts_attribute_across_line_break.py)
           "y.\n# a comment\nx = 1\n",
           "def f() -> int: ...\n\n@dec\ndef g():\n    pass\n",
           // an f-string's field runs over lines
           // (fuzz/regressions/parts_fstring_field_over_lines.py)
           "print(f\"a {b:.4f\nimport torch\n}\")\nx = 1\n",
           // a line at column 0 that cannot start a statement continues the one above
           "def g(a, b  )  \n:# note\n    return a\n\n\ndef h():\n    pass\n",
       }) {
    const SyntaxTree tree = parse_tree(tree_sitter_python(), text);
    EXPECT_EQ(walk_in_parts(text), cursor_walk(tree.get())) << "input: " << text;
  }
}

// A syntax error stays in its part: an unclosed bracket ends at the next `def`, `class` or
// `import` at column 0, and what follows parses as if the error were not there (a whole parse
// folds it into the error). An unclosed string runs to the end of the text either way.
TEST(FlatTree, PartsKeepASyntaxErrorInItsPart) {
  const std::string text = "x = (1,\ny = 2\ndef f():\n    return 1\n";
  const std::vector<TextPart> parts = python::text_parts(text, 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].begin(), text.find("def"));
  const FlatTree flat(tree_sitter_python(), text, parts);
  ASSERT_TRUE(flat.root().has_error());
  Node last;
  for (Node c = flat.root().first_child(); !c.null(); c = c.next_sibling()) last = c;
  EXPECT_STREQ(last.type(), "function_definition");
  EXPECT_FALSE(last.has_error());
  EXPECT_EQ(last.end(), text.size() - 1);
  EXPECT_TRUE(python::text_parts("s = '''\ndef f():\n    pass\n", 1).empty());
}

// Where each part of whole statements after the first starts; each range's points checked.
std::vector<uint32_t> cut_bytes(std::string_view text) {
  std::vector<uint32_t> out;
  auto check = [&](uint32_t byte, TSPoint point) {
    const std::string_view before = text.substr(0, byte);
    EXPECT_EQ(point.row, std::count(before.begin(), before.end(), '\n'));
    const size_t line = before.rfind('\n');
    EXPECT_EQ(point.column, line == std::string_view::npos ? byte : byte - line - 1);
  };
  const std::vector<TextPart> parts = python::text_parts(text, 1);
  for (const TextPart& part : parts) {
    for (uint32_t r = 0; r < part.count; ++r) {
      check(part.ranges[r].start_byte, part.ranges[r].start_point);
      check(part.ranges[r].end_byte, part.ranges[r].end_point);
    }
    if (&part != &parts.front() && part.kind != TextPart::Kind::Piece) out.push_back(part.begin());
  }
  return out;
}

using Cuts = std::vector<uint32_t>;

TEST(TextParts, CutOnlyBetweenTopLevelStatements) {
  // Before each line of code at column 0; not before a continuation of the statement above.
  EXPECT_EQ(cut_bytes("a = 1\nb = 2\n"), Cuts{6});
  EXPECT_EQ(cut_bytes("if a:\n  b\nelse:\n  c\nd\n"), Cuts{20});
  EXPECT_EQ(cut_bytes("try:\n  a\nexcept E:\n  b\nfinally:\n  c\n"), Cuts{});
  EXPECT_EQ(cut_bytes("@dec\n\ndef f():\n  pass\nx\n"), Cuts{22});
  // Not inside brackets, strings or a backslash continuation; comments and blank lines are no
  // statements (the comments before the first statement may be a part of their own).
  EXPECT_EQ(cut_bytes("x = (1 +\n2)\ny\n"), Cuts{12});
  EXPECT_EQ(cut_bytes("s = '''\nx = 1\n'''\ny\n"), Cuts{18});
  EXPECT_EQ(cut_bytes("s = \"a\\\"\"\ny\n"), Cuts{10});
  EXPECT_EQ(cut_bytes("x = 1 + \\\n2\ny\n"), Cuts{12});
  EXPECT_EQ(cut_bytes("# c\n  # d\nx\n"), Cuts{10});
  EXPECT_EQ(cut_bytes("s = 'a # b'\ny\n"), Cuts{12});
  // After a `;` between simple statements at column 0, not in a compound statement's line.
  EXPECT_EQ(cut_bytes("a = 1; b = 2\n"), Cuts{6});
  EXPECT_EQ(cut_bytes("for x in y: a(); b()\n"), Cuts{});
  EXPECT_EQ(cut_bytes("f(a, (b; c))\n"), Cuts{});
  // Not after a line whose code cannot end a statement: tree-sitter reads on into the next.
  EXPECT_EQ(cut_bytes("y.\nx = 1\n"), Cuts{});
  EXPECT_EQ(cut_bytes("a = b +\nc\nd\n"), Cuts{10});
  EXPECT_EQ(cut_bytes("def f(): ...\n@dec\ndef g(): pass\n"), Cuts{13});
  // A text no longer than a part is not cut.
  EXPECT_TRUE(python::text_parts("a = 1\nb = 2\n", 64).empty());
}

// A long simple statement is cut after commas of its longest list: a head (the statement with
// the first piece) and pieces (the statement with one piece, and the element before it, between
// the brackets).
TEST(TextParts, ALongListIsCutAfterCommas) {
  const std::string text = "x = f([1, 2, 3])\n";
  const std::vector<TextPart> parts = python::text_parts(text, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].kind, TextPart::Kind::Head);
  const uint32_t bracket = static_cast<uint32_t>(text.find('['));
  const auto piece = [&](const TextPart& part) {
    return text.substr(part.ranges[1].start_byte,
                       part.ranges[1].end_byte - part.ranges[1].start_byte);
  };
  for (const TextPart& part : parts) EXPECT_EQ(part.bracket, bracket);
  EXPECT_EQ(text.substr(0, parts[0].ranges[0].end_byte), "x = f([1,");
  // Each piece starts with the element before it, for context; its own elements follow.
  EXPECT_EQ(parts[1].kind, TextPart::Kind::Piece);
  EXPECT_EQ(piece(parts[1]), "1, 2,");
  EXPECT_EQ(parts[1].elements, text.find(" 2,"));
  EXPECT_EQ(piece(parts[2]), " 2, 3");
  EXPECT_EQ(parts[2].elements, text.find(" 3"));
  EXPECT_EQ(parts[2].ranges[2].start_byte, text.find(']'));
  EXPECT_EQ(parts[2].end(), text.size());
  // Statements that open a block keep their lists whole.
  EXPECT_TRUE(python::text_parts("for x in [1, 2]:\n    pass\n", 1).empty());
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

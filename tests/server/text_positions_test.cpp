// LSP positions against byte offsets: UTF-16 columns (a character outside the BMP is two),
// UTF-8 columns, every kind of line break, and positions past the end.

#include "server/text_positions.h"

#include <gtest/gtest.h>

namespace gpulint::server {
namespace {

// "a😀é = 1" : a (1 byte, 1 unit), 😀 (4 bytes, 2 units), é (2 bytes, 1 unit).
const std::string kText = "x = 0\r\na\xF0\x9F\x98\x80\xC3\xA9 = 1\rlast";

TEST(LspPositions, Utf16CountsSurrogatePairs) {
  const LineIndex index(kText, Encoding::Utf16);
  EXPECT_EQ(index.offset({1, 0}), 7u);
  EXPECT_EQ(index.offset({1, 1}), 8u);
  EXPECT_EQ(index.offset({1, 3}), 12u);  // after the emoji
  EXPECT_EQ(index.offset({1, 4}), 14u);  // after é
  EXPECT_EQ(index.position(12), (LspPosition{1, 3}));
  EXPECT_EQ(index.position(14), (LspPosition{1, 4}));
  EXPECT_EQ(index.offset({2, 2}), 21u);  // a lone \r ends a line too
}

TEST(LspPositions, Utf8CountsBytes) {
  const LineIndex index(kText, Encoding::Utf8);
  EXPECT_EQ(index.offset({1, 5}), 12u);
  EXPECT_EQ(index.position(14), (LspPosition{1, 7}));
}

TEST(LspPositions, PositionsPastTheEndAreClamped) {
  const LineIndex index(kText, Encoding::Utf16);
  EXPECT_EQ(index.offset({0, 99}), 5u);  // the line's end, before its \r\n
  EXPECT_EQ(index.offset({9, 0}), kText.size());
  EXPECT_EQ(index.position(kText.size() + 10), (LspPosition{2, 4}));
}

TEST(LspPositions, ChangesReplaceTheirRange) {
  std::string text = kText;
  apply_change(text, {1, 1}, {1, 3}, "b", Encoding::Utf16);
  EXPECT_EQ(text, "x = 0\r\nab\xC3\xA9 = 1\rlast");
  apply_change(text, {0, 0}, {0, 0}, "# top\n", Encoding::Utf16);
  EXPECT_TRUE(text.starts_with("# top\nx = 0"));
  apply_change(text, {3, 4}, {3, 4}, "!", Encoding::Utf16);
  EXPECT_TRUE(text.ends_with("last!"));
}

}  // namespace
}  // namespace gpulint::server

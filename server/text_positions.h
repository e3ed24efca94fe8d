#pragma once

// Positions in a document as LSP counts them (a zero-based line, and a column in UTF-16 code
// units unless the client agreed to UTF-8) and as gpulint does (byte offsets).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::server {

enum class Encoding { Utf16, Utf8 };

struct LspPosition {
  uint32_t line = 0;
  uint32_t character = 0;
  friend bool operator==(const LspPosition&, const LspPosition&) = default;
};

class LineIndex {
 public:
  LineIndex(std::string_view text, Encoding encoding);
  // A position past the end of its line is the line's end; past the last line, the text's end.
  size_t offset(LspPosition p) const;
  LspPosition position(size_t offset) const;

 private:
  std::string_view text_;
  Encoding encoding_;
  std::vector<size_t> starts_;  // byte offset of each line's start
};

// Replaces [start, end) of `text` by `replacement` (an incremental didChange); positions out of
// range are clamped as LineIndex does.
void apply_change(std::string& text, LspPosition start, LspPosition end,
                  std::string_view replacement, Encoding encoding);

}  // namespace gpulint::server

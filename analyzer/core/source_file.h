#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/span.h"

namespace gpulint {

// 1-based line and column; columns count Unicode code points, as editors and Ruff do.
struct Position {
  uint32_t line = 1;
  uint32_t column = 1;

  friend bool operator==(const Position&, const Position&) = default;
};

// The bytes of one file and its line index. Immutable once built. Lines end at LF, CRLF or a
// lone CR; the text reads a lone CR as an LF (same offsets).
class SourceFile {
 public:
  SourceFile(std::string path, std::string bytes);

  const std::string& path() const { return path_; }
  std::string_view text() const { return bytes_; }
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

  // The line (1-based) holding `byte`.
  uint32_t line_of(uint32_t byte) const;
  Position position(uint32_t byte) const;
  // The text of a 1-based line, without its line terminator.
  std::string_view line_text(uint32_t line) const;
  uint32_t line_start(uint32_t line) const { return line_starts_[line - 1]; }

 private:
  std::string path_;
  std::string bytes_;
  std::vector<uint32_t> line_starts_;
  // The last position computed: many findings on one long line then cost one pass over it,
  // not one pass each. A SourceFile is used by one thread at a time.
  mutable uint32_t cached_byte_ = 0;
  mutable Position cached_ = {1, 1};
};

// Byte offset of the first invalid UTF-8 sequence, or -1 when `text` is valid UTF-8.
int64_t first_invalid_utf8(std::string_view text);
// True when the bytes look like a binary file (a NUL byte in the first 8 KiB, as git decides).
bool looks_binary(std::string_view text);
// "UTF-16 text (...)" when the text is UTF-16 or UTF-32 (a byte-order mark, or a NUL in every
// other byte); empty otherwise.
std::string_view utf16_kind(std::string_view text);

}  // namespace gpulint

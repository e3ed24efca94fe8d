#include "analyzer/core/source_file.h"

#include <algorithm>
#include <cstring>

namespace gpulint {

SourceFile::SourceFile(std::string path, std::string bytes)
    : path_(std::move(path)), bytes_(std::move(bytes)) {
  // A lone CR ends a line (classic Mac files, which CPython reads): it becomes an LF, byte for
  // byte, so the parsers see the lines CPython sees and every offset stays the file's.
  for (size_t cr = bytes_.find('\r'); cr != std::string::npos; cr = bytes_.find('\r', cr + 1)) {
    if (cr + 1 == bytes_.size() || bytes_[cr + 1] != '\n') bytes_[cr] = '\n';
  }
  line_starts_.push_back(0);
  const char* data = bytes_.data();
  const size_t size = bytes_.size();
  for (size_t i = 0; i < size;) {
    const void* hit = std::memchr(data + i, '\n', size - i);
    if (hit == nullptr) break;
    i = static_cast<const char*>(hit) - data + 1;
    line_starts_.push_back(static_cast<uint32_t>(i));
  }
}

uint32_t SourceFile::line_of(uint32_t byte) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), byte);
  return static_cast<uint32_t>(it - line_starts_.begin());
}

Position SourceFile::position(uint32_t byte) const {
  byte = std::min<uint32_t>(byte, static_cast<uint32_t>(bytes_.size()));
  const uint32_t line = line_of(byte);
  uint32_t column = 1;
  uint32_t from = line_starts_[line - 1];
  if (cached_.line == line && cached_byte_ <= byte && cached_byte_ >= from) {
    from = cached_byte_;
    column = cached_.column;
  }
  for (uint32_t i = from; i < byte; ++i) {
    // Count code points: every byte that is not a UTF-8 continuation byte starts one.
    if ((static_cast<unsigned char>(bytes_[i]) & 0xC0) != 0x80) ++column;
  }
  cached_byte_ = byte;
  cached_ = {line, column};
  return cached_;
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end =
      line < line_starts_.size() ? line_starts_[line] : static_cast<uint32_t>(bytes_.size());
  std::string_view text(bytes_.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

int64_t first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t min;
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000;
    } else {
      return static_cast<int64_t>(i);
    }
    if (i + len > n) return static_cast<int64_t>(i);
    uint32_t cp = c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return static_cast<int64_t>(i);
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return static_cast<int64_t>(i);
    i += len;
  }
  return -1;
}

bool looks_binary(std::string_view text) {
  return text.substr(0, 8192).find('\0') != std::string_view::npos;
}

std::string_view utf16_kind(std::string_view text) {
  using namespace std::string_view_literals;  // the marks hold NULs: lengths from the literals
  if (text.starts_with("\xFF\xFE\0\0"sv) || text.starts_with("\0\0\xFE\xFF"sv))
    return "UTF-32 text (it starts with a UTF-32 byte-order mark)";
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
    return "UTF-16 text (it starts with a UTF-16 byte-order mark)";
  // ASCII written as UTF-16 without a mark: a NUL in every other byte.
  const std::string_view head = text.substr(0, 512);
  size_t even = 0, odd = 0;
  for (size_t i = 0; i < head.size(); ++i) (i % 2 ? odd : even) += head[i] == '\0';
  const size_t half = head.size() / 2;
  if (head.size() >= 8 &&
      ((even * 10 >= half * 9 && odd == 0) || (odd * 10 >= half * 9 && even == 0))) {
    return "UTF-16 text (a NUL in every other byte)";
  }
  return {};
}

}  // namespace gpulint

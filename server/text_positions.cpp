#include "server/text_positions.h"

#include <algorithm>

namespace gpulint::server {
namespace {

// The length of the UTF-8 sequence a lead byte starts; 1 for a stray continuation byte, so
// that text which is not valid UTF-8 still moves forward.
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

LineIndex::LineIndex(std::string_view text, Encoding encoding) : text_(text), encoding_(encoding) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    // "\r\n", "\n" and a lone "\r" end a line, as LSP says.
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      starts_.push_back(i + 1);
    }
  }
}

size_t LineIndex::offset(LspPosition p) const {
  if (p.line >= starts_.size()) return text_.size();
  const size_t start = starts_[p.line];
  size_t end = p.line + 1 < starts_.size() ? starts_[p.line + 1] : text_.size();
  while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  if (encoding_ == Encoding::Utf8) return std::min(start + p.character, end);
  size_t at = start;
  uint32_t units = 0;
  while (at < end && units < p.character) {
    const size_t n = std::min(sequence_length(static_cast<unsigned char>(text_[at])), end - at);
    units += n == 4 ? 2 : 1;  // outside the Basic Multilingual Plane: a surrogate pair
    at += n;
  }
  return at;
}

LspPosition LineIndex::position(size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const uint32_t line = static_cast<uint32_t>(after - starts_.begin() - 1);
  const size_t start = starts_[line];
  if (encoding_ == Encoding::Utf8) return {line, static_cast<uint32_t>(offset - start)};
  uint32_t units = 0;
  for (size_t at = start; at < offset;) {
    const size_t n = sequence_length(static_cast<unsigned char>(text_[at]));
    units += n == 4 ? 2 : 1;
    at += n;
  }
  return {line, units};
}

void apply_change(std::string& text, LspPosition start, LspPosition end,
                  std::string_view replacement, Encoding encoding) {
  const LineIndex index(text, encoding);
  size_t from = index.offset(start), to = index.offset(end);
  if (to < from) std::swap(from, to);
  text.replace(from, to - from, replacement);
}

}  // namespace gpulint::server

#include "analyzer/python/statement_cuts.h"

#include <array>

namespace gpulint::python {
namespace {

bool is_word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

std::string_view first_word(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && is_word_byte(text[end])) ++end;
  return text.substr(at, end - at);
}

// A line at column 0 that starts with one of these continues the statement above it.
bool continues_statement(std::string_view word) {
  return word == "else" || word == "elif" || word == "except" || word == "finally";
}

// Statements whose line may hold a body after the colon (`for x in y: a(); b()`): a `;` on
// such a line is inside the body. `match` and `case` count, though soft keywords, to be safe.
bool opens_compound(std::string_view word) {
  static constexpr std::array<std::string_view, 14> kCompound = {
      "if",      "elif", "else", "for",   "while", "try",   "except",
      "finally", "with", "def",  "class", "async", "match", "case"};
  for (std::string_view k : kCompound) {
    if (word == k) return true;
  }
  return false;
}

// A line at column 0 that starts with one of these inside an open bracket is a statement the
// bracket never closed for: these keywords have no place in an expression.
bool statement_only(std::string_view text, size_t at) {
  const std::string_view word = first_word(text, at);
  const size_t after = at + word.size();
  return (word == "def" || word == "class" || word == "import") && after < text.size() &&
         (text[after] == ' ' || text[after] == '\t');
}

}  // namespace

std::vector<TextPlace> statement_cuts(std::string_view text, uint32_t part_bytes) {
  std::vector<TextPlace> cuts;
  if (text.size() <= part_bytes) return cuts;
  const size_t n = text.size();
  uint32_t row = 0;
  size_t line_start = 0;
  size_t part_start = 0;
  int depth = 0;
  bool continued = false;        // the line before ended in a backslash
  bool after_decorator = false;  // the last top-level line was `@...`
  bool simple_line = false;      // this line starts a simple statement at column 0
  auto cut = [&](size_t at) {
    cuts.push_back({static_cast<uint32_t>(at), {row, static_cast<uint32_t>(at - line_start)}});
    part_start = at;
  };
  for (size_t i = 0; i < n;) {
    const char c = text[i];
    // An unclosed bracket ends where a statement that cannot be inside it starts, so that the
    // rest of a broken file is still cut into parts.
    if (i == line_start && depth > 0 && !continued && statement_only(text, i)) depth = 0;
    if (i == line_start && depth == 0 && !continued) {
      simple_line = false;
      // A line of code at column 0 (not blank, indented or a comment) starts a statement.
      if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r' && c != '#' && c != '\\') {
        const std::string_view word = first_word(text, i);
        if (!after_decorator && !continues_statement(word) && i - part_start >= part_bytes &&
            i > 0) {
          cut(i);
        }
        after_decorator = c == '@';
        simple_line = !after_decorator && !opens_compound(word);
      }
    }
    if (i == line_start) continued = false;
    switch (c) {
      case '\n':
        ++row;
        line_start = ++i;
        continue;
      case '#':
        while (i < n && text[i] != '\n') ++i;
        continue;
      case '\\':
        // A backslash before the line's end joins the next line to this one.
        if (i + 1 < n &&
            (text[i + 1] == '\n' || (text[i + 1] == '\r' && i + 2 < n && text[i + 2] == '\n'))) {
          continued = true;
        }
        ++i;
        continue;
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      case ';':
        if (depth == 0 && simple_line && i + 1 - part_start >= part_bytes) cut(i + 1);
        break;
      case '\'':
      case '"': {
        // A string, whatever its prefix: a backslash escapes the next byte in every kind (a
        // raw string keeps it, but its quote still does not end the string); one not tripled
        // ends at its line's end, closed or not.
        const bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
        i += triple ? 3 : 1;
        while (i < n) {
          if (text[i] == '\\') {
            if (i + 1 < n && text[i + 1] == '\n') {
              ++row;
              line_start = i + 2;
            }
            i += 2;
            continue;
          }
          if (text[i] == '\n') {
            if (!triple) break;
            ++row;
            line_start = i + 1;
          } else if (text[i] == c &&
                     (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
            i += triple ? 3 : 1;
            break;
          }
          ++i;
        }
        continue;
      }
      default:
        break;
    }
    ++i;
  }
  return cuts;
}

}  // namespace gpulint::python

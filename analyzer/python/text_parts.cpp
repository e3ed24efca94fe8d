#include "analyzer/python/text_parts.h"

#include <array>
#include <cctype>
#include <optional>
#include <utility>

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

// What a statement can begin with: a name or keyword, a number, a string, a bracket, a
// decorator, a unary operator, a starred target, `...`. A line at column 0 beginning otherwise
// (`:` after `def f(a)` on the line before) continues the statement above: tree-sitter reads on.
bool can_start_statement(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80 ||
         std::string_view("([{@'\"-+~*.").find(c) != std::string_view::npos;
}

// A line at column 0 that starts with one of these inside an open bracket is a statement the
// bracket never closed for: these keywords have no place in an expression.
bool statement_only(std::string_view text, size_t at) {
  const std::string_view word = first_word(text, at);
  const size_t after = at + word.size();
  return (word == "def" || word == "class" || word == "import") && after < text.size() &&
         (text[after] == ' ' || text[after] == '\t');
}

TSRange range(const TextPlace& from, const TextPlace& to) {
  return {from.point, to.point, from.byte, to.byte};
}

class Scanner {
 public:
  Scanner(std::string_view text, uint32_t part_bytes) : text_(text), part_bytes_(part_bytes) {}

  std::vector<TextPart> run() {
    const size_t n = text_.size();
    for (size_t i = 0; i < n;) i = step(i);
    const TextPlace end = here(n);
    finish_statement(end);
    if (!parts_.empty() && part_start_.byte < end.byte) emit(end);
    return std::move(parts_);
  }

 private:
  struct Open {
    TextPlace after;                // just after the bracket
    std::vector<TextPlace> commas;  // just after each comma between its elements
  };
  struct LongList {
    TextPlace after_open{0, {0, 0}}, close{0, {0, 0}};
    std::vector<TextPlace> commas;  // none: no list
  };

  TextPlace here(size_t at) const {
    return {static_cast<uint32_t>(at), {row_, static_cast<uint32_t>(at - line_start_)}};
  }
  size_t since_part(size_t at) const { return at - part_start_.byte; }

  // A part of whole statements from the last cut to `to`.
  void emit(const TextPlace& to) {
    TextPart part;
    part.count = 1;
    part.ranges[0] = range(part_start_, to);
    parts_.push_back(part);
    part_start_ = to;
  }

  // A place where a statement starts (and the one before it ends).
  void statement_place(const TextPlace& at, bool simple) {
    finish_statement(at);
    if (since_part(at.byte) >= part_bytes_ && at.byte > 0) emit(at);
    statement_ = at;
    simple_ = simple;
  }

  // The statement from statement_ to `end`: cut inside its longest list when it is too long.
  void finish_statement(const TextPlace& end) {
    const LongList list = std::exchange(longest_, {});
    if (!statement_ || !simple_ || list.commas.empty() ||
        end.byte - statement_->byte <= part_bytes_)
      return;
    if (statement_->byte > part_start_.byte) emit(*statement_);
    // Pieces end after commas, each about part_bytes long; the last ends at the bracket. Each
    // piece also takes the element before it, parsed again and left out of the copy: the first
    // element of a list can parse otherwise than a later one (`[*a.b()]` and `[x, *a.b()]`).
    std::vector<size_t> ends;  // indices of the commas that end pieces
    uint32_t from = list.after_open.byte;
    for (size_t k = 0; k < list.commas.size(); ++k) {
      const TextPlace& comma = list.commas[k];
      if (comma.byte - from >= part_bytes_ && comma.byte < list.close.byte) {
        ends.push_back(k);
        from = comma.byte;
      }
    }
    const uint32_t bracket = list.after_open.byte - 1;
    TextPart head;
    head.kind = TextPart::Kind::Head;
    head.count = 2;
    head.ranges[0] = range(*statement_, ends.empty() ? list.close : list.commas[ends[0]]);
    head.ranges[1] = range(list.close, end);
    head.bracket = bracket;
    parts_.push_back(head);
    for (size_t k = 0; k < ends.size(); ++k) {
      const size_t first = ends[k];
      TextPart piece;
      piece.kind = TextPart::Kind::Piece;
      piece.count = 3;
      piece.ranges[0] = range(*statement_, list.after_open);
      piece.ranges[1] = range(first == 0 ? list.after_open : list.commas[first - 1],
                              k + 1 < ends.size() ? list.commas[ends[k + 1]] : list.close);
      piece.ranges[2] = range(list.close, end);
      piece.bracket = bracket;
      piece.elements = list.commas[first].byte;
      parts_.push_back(piece);
    }
    part_start_ = end;
  }

  size_t step(size_t i) {
    const size_t n = text_.size();
    const char c = text_[i];
    // An unclosed bracket ends where a statement that cannot be inside it starts, so that the
    // rest of a broken file is still cut into parts.
    if (i == line_start_ && !open_.empty() && !continued_ && statement_only(text_, i)) {
      open_.clear();
      longest_ = {};
    }
    if (i == line_start_ && open_.empty() && !continued_ && !line_left_open()) {
      simple_line_ = false;
      // A line of code at column 0 (not blank, indented or a comment) starts a statement.
      if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r' && c != '#' && c != '\\') {
        const std::string_view word = first_word(text_, i);
        const bool decorator = c == '@';
        if (!after_decorator_ && !continues_statement(word) && can_start_statement(c)) {
          statement_place(here(i), !decorator && !opens_compound(word));
        }
        after_decorator_ = decorator;
        simple_line_ = !decorator && !opens_compound(word);
      }
    } else if (i == line_start_ && c == '@') {
      // A decorator's line read as a continuation still keeps the next line from a cut.
      after_decorator_ = true;
    }
    if (i == line_start_) continued_ = false;
    // What the line's code ends with, for line_left_open(); comments and blanks do not count.
    if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r' && c != '#' && c != '\\')
      last_code_ = i;
    switch (c) {
      case '\n':
        ++row_;
        line_start_ = i + 1;
        return i + 1;
      case '#':
        while (i < n && text_[i] != '\n') ++i;
        return i;
      case '\\':
        // A backslash before the line's end joins the next line to this one.
        if (i + 1 < n &&
            (text_[i + 1] == '\n' || (text_[i + 1] == '\r' && i + 2 < n && text_[i + 2] == '\n'))) {
          continued_ = true;
        }
        return i + 1;
      case '(':
      case '[':
      case '{':
        open_.push_back({here(i + 1), {}});
        return i + 1;
      case ')':
      case ']':
      case '}':
        if (!open_.empty()) close(here(i));
        return i + 1;
      case ',':
        if (!open_.empty()) open_.back().commas.push_back(here(i + 1));
        return i + 1;
      case ';':
        if (open_.empty() && simple_line_) statement_place(here(i + 1), true);
        return i + 1;
      case '\'':
      case '"': {
        const size_t end = skip_string(i);
        last_code_ = end - 1;
        return end;
      }
      default:
        return i + 1;
    }
  }

  // The code so far cannot end a statement (`y.`, `x = a +`, `... and`): tree-sitter reads on
  // into the next line, as if the line break were not there, so no statement starts on it.
  bool line_left_open() const {
    if (last_code_ >= text_.size()) return false;
    const char c = text_[last_code_];
    // `...` (Ellipsis, a stub's body) is a whole expression.
    if (c == '.' && last_code_ >= 2 && text_.substr(last_code_ - 2, 3) == "...") return false;
    if (std::string_view(".+-*/%&|^~<>=!@:,").find(c) != std::string_view::npos) return true;
    if (!is_word_byte(c)) return false;
    size_t begin = last_code_;
    while (begin > 0 && is_word_byte(text_[begin - 1])) --begin;
    const std::string_view word = text_.substr(begin, last_code_ + 1 - begin);
    for (std::string_view k :
         {"and",    "or",   "not",   "in",    "is",     "lambda",   "if",    "else",
          "import", "from", "as",    "await", "assert", "del",      "with",  "for",
          "while",  "elif", "class", "def",   "global", "nonlocal", "raise", "async"}) {
      if (word == k) return true;
    }
    return false;
  }

  // A bracket closes at `at`: the longest list of the statement so far is kept (an outer list
  // is longer than the lists inside it).
  void close(const TextPlace& at) {
    Open open = std::move(open_.back());
    open_.pop_back();
    const uint32_t length = at.byte - open.after.byte;
    if (length > part_bytes_ && !open.commas.empty() &&
        (longest_.commas.empty() || length > longest_.close.byte - longest_.after_open.byte)) {
      longest_ = LongList{open.after, at, std::move(open.commas)};
    }
  }

  // A string, whatever its prefix: a backslash escapes the next byte in every kind (a raw
  // string keeps it, but its quote still does not end the string); one not tripled ends at its
  // line's end, closed or not, except inside an f-string's replacement field (`{...}`, `{{` is a
  // brace), where the grammar reads an expression, over lines as in brackets. Returns where the
  // string ends.
  size_t skip_string(size_t i) {
    const size_t n = text_.size();
    const char quote = text_[i];
    bool formatted = false;
    for (size_t p = i; p > 0 && std::isalpha(static_cast<unsigned char>(text_[p - 1])); --p)
      formatted |= text_[p - 1] == 'f' || text_[p - 1] == 'F';
    const bool triple = i + 2 < n && text_[i + 1] == quote && text_[i + 2] == quote;
    i += triple ? 3 : 1;
    uint32_t fields = 0;  // replacement fields open
    while (i < n) {
      if (text_[i] == '\\') {
        if (i + 1 < n && text_[i + 1] == '\n') {
          ++row_;
          line_start_ = i + 2;
        }
        i += 2;
        continue;
      }
      if (formatted && text_[i] == '{') {
        if (fields == 0 && i + 1 < n && text_[i + 1] == '{') {
          i += 2;
          continue;
        }
        ++fields;
      } else if (formatted && text_[i] == '}' && fields > 0) {
        --fields;
      }
      if (text_[i] == '\n') {
        if (!triple && fields == 0) return i;
        ++row_;
        line_start_ = i + 1;
      } else if (text_[i] == quote &&
                 (!triple || (i + 2 < n && text_[i + 1] == quote && text_[i + 2] == quote))) {
        return i + (triple ? 3 : 1);
      }
      ++i;
    }
    return n;
  }

  std::string_view text_;
  const uint32_t part_bytes_;
  std::vector<TextPart> parts_;
  TextPlace part_start_{0, {0, 0}};
  uint32_t row_ = 0;
  size_t line_start_ = 0;
  std::vector<Open> open_;              // brackets open here, innermost last
  bool continued_ = false;              // the line before ended in a backslash
  size_t last_code_ = SIZE_MAX;         // the last byte of code seen (no comment or blank)
  bool after_decorator_ = false;        // the last top-level line was `@...`
  bool simple_line_ = false;            // this line starts a simple statement at column 0
  std::optional<TextPlace> statement_;  // where the current top-level statement starts
  bool simple_ = false;                 // ... and whether it is a simple statement
  LongList longest_;                    // its longest bracketed list with commas
};

}  // namespace

std::vector<TextPart> text_parts(std::string_view text, uint32_t part_bytes) {
  if (text.size() <= part_bytes) return {};
  return Scanner(text, part_bytes).run();
}

}  // namespace gpulint::python

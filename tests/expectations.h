#pragma once

// Inline expectations in fixture files, as ARCHITECTURE.md "Tests" defines them:
//
//   x = loss.item()  # expect: GL101          trailing: applies to its own line
//   # expect: GL101 GL104                     alone on a line: applies to the next line that
//   print(loss.item())                        holds code (blank and comment-only lines skipped)
//   # expect: GL101@17 "forces a sync"        optional 1-based column and message fragment
//
// C++ fixtures use `// expect:`; the comment marker is a parameter. Header-only because
// tests/CMakeLists.txt compiles only *_test.cpp files.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::expect {

struct Expectation {
  std::string code;                // GL101
  uint32_t line = 0;               // 1-based line the finding must be on
  std::optional<uint32_t> column;  // 1-based column, when given with @N
  std::string fragment;            // a substring of the message, when given in quotes
  uint32_t written_on = 0;         // the line the expectation comment is on
};

struct ExpectationError {
  uint32_t line = 0;
  std::string message;
};

struct ParsedExpectations {
  std::vector<Expectation> expectations;  // in the order written
  std::vector<ExpectationError> errors;   // malformed expectations: a fixture with any fails
};

namespace detail {

inline std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      lines.push_back(text.substr(start, i - start));
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

inline std::string_view trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

// The byte offset of the first comment marker on the line outside a string literal on that
// line, or npos. Strings spanning lines (triple quotes) are not tracked: fixture lines that
// carry expectations do not need it.
inline size_t comment_start(std::string_view line, std::string_view marker) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (line.substr(i, marker.size()) == marker) return i;
  }
  return std::string_view::npos;
}

inline bool is_code_line(std::string_view line, std::string_view marker) {
  const std::string_view rest = trim_left(line);
  return !rest.empty() && rest.substr(0, marker.size()) != marker;
}

// Parses the part after `expect:`: `CODE[@COL] ["fragment"] CODE ...`.
inline bool parse_items(std::string_view spec, uint32_t written_on, uint32_t target,
                        std::vector<Expectation>& out, std::vector<ExpectationError>& errors) {
  size_t i = 0;
  size_t found = 0;
  auto fail = [&](std::string message) {
    errors.push_back({written_on, std::move(message)});
    return false;
  };
  while (true) {
    while (i < spec.size() && is_space(spec[i])) ++i;
    if (i >= spec.size()) break;
    if (spec[i] == '"') {
      if (out.empty() || found == 0) return fail("a message fragment must follow a code");
      const size_t close = spec.find('"', i + 1);
      if (close == std::string_view::npos) return fail("unterminated message fragment");
      if (!out.back().fragment.empty()) return fail("two message fragments for one code");
      out.back().fragment = std::string(spec.substr(i + 1, close - i - 1));
      if (out.back().fragment.empty()) return fail("empty message fragment");
      i = close + 1;
      continue;
    }
    // A code: two upper-case letters and three digits.
    if (i + 5 > spec.size() || !std::isupper(static_cast<unsigned char>(spec[i])) ||
        !std::isupper(static_cast<unsigned char>(spec[i + 1])) ||
        !std::isdigit(static_cast<unsigned char>(spec[i + 2])) ||
        !std::isdigit(static_cast<unsigned char>(spec[i + 3])) ||
        !std::isdigit(static_cast<unsigned char>(spec[i + 4]))) {
      return fail("expected a code like GL101 at `" + std::string(spec.substr(i)) + "`");
    }
    Expectation e;
    e.code = std::string(spec.substr(i, 5));
    e.line = target;
    e.written_on = written_on;
    i += 5;
    if (i < spec.size() && spec[i] == '@') {
      ++i;
      uint32_t column = 0;
      size_t digits = 0;
      while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) {
        column = column * 10 + static_cast<uint32_t>(spec[i] - '0');
        ++i;
        ++digits;
      }
      if (digits == 0 || column == 0) return fail("`@` must be followed by a 1-based column");
      e.column = column;
    }
    if (i < spec.size() && !is_space(spec[i]) && spec[i] != '"') {
      return fail("unexpected text after " + e.code + ": `" + std::string(spec.substr(i)) + "`");
    }
    out.push_back(std::move(e));
    ++found;
  }
  if (found == 0) return fail("`expect:` names no code");
  return true;
}

}  // namespace detail

// Reads every `<marker> expect: ...` comment of a file. `marker` is "#" for Python, "//" for C++.
inline ParsedExpectations parse_expectations(std::string_view text, std::string_view marker = "#") {
  ParsedExpectations result;
  const std::vector<std::string_view> lines = detail::split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    const uint32_t line_no = static_cast<uint32_t>(index + 1);
    const size_t comment = detail::comment_start(line, marker);
    if (comment == std::string_view::npos) continue;
    // The expectation is the comment itself, or a later `# expect:` inside the same comment
    // (`x = y  # why it fires  # expect: GL101`).
    std::string_view body = line.substr(comment);
    size_t at = std::string_view::npos;
    for (size_t pos = 0; pos < body.size();) {
      const size_t m = body.find(marker, pos);
      if (m == std::string_view::npos) break;
      std::string_view after = detail::trim_left(body.substr(m + marker.size()));
      if (after.substr(0, 7) == "expect:") {
        at = static_cast<size_t>(after.data() - body.data()) + 7;
        break;
      }
      pos = m + marker.size();
    }
    if (at == std::string_view::npos) continue;
    const std::string_view spec = body.substr(at);

    uint32_t target = line_no;
    const bool own_line = detail::trim_left(line.substr(0, comment)).empty();
    if (own_line) {
      target = 0;
      for (size_t next = index + 1; next < lines.size(); ++next) {
        if (detail::is_code_line(lines[next], marker)) {
          target = static_cast<uint32_t>(next + 1);
          break;
        }
      }
      if (target == 0) {
        result.errors.push_back({line_no, "an own-line expectation with no code line after it"});
        continue;
      }
    }
    detail::parse_items(spec, line_no, target, result.expectations, result.errors);
  }
  return result;
}

// One finding as the runner compares it.
struct Actual {
  std::string code;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
};

inline bool satisfies(const Actual& actual, const Expectation& e) {
  if (actual.code != e.code || actual.line != e.line) return false;
  if (e.column && *e.column != actual.column) return false;
  if (!e.fragment.empty() && actual.message.find(e.fragment) == std::string::npos) return false;
  return true;
}

struct MatchResult {
  std::vector<Expectation> missing;  // expected, not reported
  std::vector<Actual> unexpected;    // reported, not expected
  bool ok() const { return missing.empty() && unexpected.empty(); }
};

// One expectation matches one finding. The most specific expectations (column and fragment)
// choose first, so a loose expectation cannot take the finding a precise one needs.
inline MatchResult match(const std::vector<Expectation>& expectations,
                         const std::vector<Actual>& actuals) {
  std::vector<size_t> order(expectations.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto specificity = [&](size_t i) {
    return (expectations[i].column ? 2 : 0) + (expectations[i].fragment.empty() ? 0 : 1);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return specificity(a) > specificity(b); });
  std::vector<bool> used(actuals.size(), false);
  std::vector<bool> met(expectations.size(), false);
  for (size_t i : order) {
    for (size_t a = 0; a < actuals.size(); ++a) {
      if (!used[a] && satisfies(actuals[a], expectations[i])) {
        used[a] = true;
        met[i] = true;
        break;
      }
    }
  }
  MatchResult result;
  for (size_t i = 0; i < expectations.size(); ++i) {
    if (!met[i]) result.missing.push_back(expectations[i]);
  }
  for (size_t a = 0; a < actuals.size(); ++a) {
    if (!used[a]) result.unexpected.push_back(actuals[a]);
  }
  return result;
}

}  // namespace gpulint::expect

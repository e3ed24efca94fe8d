#pragma once

// Inline expectations in fixture files, as ARCHITECTURE.md "Tests" defines them:
//
//   x = loss.item()  # expect: GL101          trailing: applies to its own line
//   # expect: GL101 GL104                     alone on a line: applies to the next line that
//   print(loss.item())                        holds code (blank and comment-only lines skipped)
//   # expect: GL101@17 "forces a sync"        optional 1-based column and message fragment
//
// Two more markers record where the tool and the ground truth (RULES.md) disagree, so a corpus
// can measure precision and recall and still pass:
//
//   x = loss.item()  # known-miss: GL101      the ground truth fires, the tool does not: the
//                                             runner requires the finding to be ABSENT (a fix
//                                             makes the test fail until the marker is flipped
//                                             to `expect`)
//   print(step)  # known-false: GL104         the tool fires, the ground truth does not: the
//                                             runner requires the finding (as for `expect`)
//
// Markers may be combined in one comment: `# expect: GL101  # known-miss: GL104`.
//
// C++ fixtures use `// expect:`; the comment marker is a parameter. Header-only because
// tests/CMakeLists.txt compiles only *_test.cpp files.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::expect {

// What a marker says about the tool against the ground truth.
enum class Kind {
  Expect,      // `expect:` the ground truth fires and the tool reports it (a true positive)
  KnownMiss,   // `known-miss:` the ground truth fires, the tool does not (a false negative)
  KnownFalse,  // `known-false:` the tool reports it, the ground truth does not (a false positive)
};

inline const char* keyword(Kind kind) {
  switch (kind) {
    case Kind::Expect:
      return "expect:";
    case Kind::KnownMiss:
      return "known-miss:";
    case Kind::KnownFalse:
      return "known-false:";
  }
  return "expect:";
}

struct Expectation {
  Kind kind = Kind::Expect;
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

inline bool is_cpp(std::string_view marker) { return marker == "//"; }

// The byte offset of the first comment marker on the line outside a string literal on that
// line, or npos. Strings spanning lines (triple quotes, C++ raw strings) are not tracked:
// fixture lines that carry expectations do not need it. In C++ a quote after a digit or
// letter is a digit separator (`1'000`), not a character literal.
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
    if (c == '\'' && is_cpp(marker) && i > 0 &&
        std::isalnum(static_cast<unsigned char>(line[i - 1]))) {
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

// Which lines hold code, for own-line expectations to skip to. Blank lines and comment-only
// lines do not; in C++ neither do lines wholly inside a `/* ... */` comment.
inline std::vector<bool> code_lines(const std::vector<std::string_view>& lines,
                                    std::string_view marker) {
  std::vector<bool> code(lines.size(), false);
  bool in_block = false;
  for (size_t index = 0; index < lines.size(); ++index) {
    std::string_view rest = trim_left(lines[index]);
    while (!rest.empty()) {
      if (in_block) {
        const size_t close = rest.find("*/");
        if (close == std::string_view::npos) break;
        in_block = false;
        rest = trim_left(rest.substr(close + 2));
        continue;
      }
      if (rest.substr(0, marker.size()) == marker) break;
      if (is_cpp(marker) && rest.substr(0, 2) == "/*") {
        in_block = true;
        rest = rest.substr(2);
        continue;
      }
      code[index] = true;
      break;
    }
  }
  return code;
}

// Parses the part after `expect:`: `CODE[@COL] ["fragment"] CODE ...`.
inline bool parse_items(std::string_view spec, Kind kind, uint32_t written_on, uint32_t target,
                        std::vector<Expectation>& out, std::vector<ExpectationError>& errors) {
  size_t i = 0;
  size_t found = 0;
  const std::string name(keyword(kind), std::char_traits<char>::length(keyword(kind)) - 1);
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
    e.kind = kind;
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
  if (found == 0) return fail("`" + name + ":` names no code");
  return true;
}

// One `<keyword> spec` part of a comment.
struct Segment {
  Kind kind;
  std::string_view spec;  // the text after the keyword, up to the next marker segment
};

// The marker segments of a comment that starts at `body[0]`: every `<marker> <keyword>` in it,
// each spec running to the start of the next one.
inline std::vector<Segment> marker_segments(std::string_view body, std::string_view marker) {
  struct Start {
    size_t at;    // where `<marker>` begins
    size_t spec;  // where the spec begins
    Kind kind;
  };
  std::vector<Start> starts;
  for (size_t pos = 0; pos < body.size();) {
    const size_t m = body.find(marker, pos);
    if (m == std::string_view::npos) break;
    const std::string_view after = trim_left(body.substr(m + marker.size()));
    for (Kind kind : {Kind::Expect, Kind::KnownMiss, Kind::KnownFalse}) {
      const std::string_view word = keyword(kind);
      if (after.substr(0, word.size()) == word) {
        starts.push_back({m, static_cast<size_t>(after.data() - body.data()) + word.size(), kind});
        break;
      }
    }
    pos = m + marker.size();
  }
  std::vector<Segment> segments;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1].at : body.size();
    segments.push_back({starts[i].kind, body.substr(starts[i].spec, end - starts[i].spec)});
  }
  return segments;
}

}  // namespace detail

// Reads every `<marker> expect: ...` comment of a file. `marker` is "#" for Python, "//" for C++.
inline ParsedExpectations parse_expectations(std::string_view text, std::string_view marker = "#") {
  ParsedExpectations result;
  const std::vector<std::string_view> lines = detail::split_lines(text);
  const std::vector<bool> code = detail::code_lines(lines, marker);
  for (size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    const uint32_t line_no = static_cast<uint32_t>(index + 1);
    const size_t comment = detail::comment_start(line, marker);
    if (comment == std::string_view::npos) continue;
    // The markers: the comment itself, or later `# <keyword>` parts of the same comment
    // (`x = y  # why it fires  # expect: GL101  # known-miss: GL104`).
    const std::vector<detail::Segment> segments =
        detail::marker_segments(line.substr(comment), marker);
    if (segments.empty()) continue;

    uint32_t target = line_no;
    const bool own_line = detail::trim_left(line.substr(0, comment)).empty();
    if (own_line) {
      target = 0;
      for (size_t next = index + 1; next < lines.size(); ++next) {
        if (code[next]) {
          target = static_cast<uint32_t>(next + 1);
          break;
        }
      }
      if (target == 0) {
        result.errors.push_back({line_no, "an own-line expectation with no code line after it"});
        continue;
      }
    }
    for (const detail::Segment& segment : segments) {
      detail::parse_items(segment.spec, segment.kind, line_no, target, result.expectations,
                          result.errors);
    }
  }
  return result;
}

// The comment marker of a fixture, by its file name: `//` for C++ sources and headers.
inline std::string_view marker_for(std::string_view path) {
  for (std::string_view ext : {".cpp", ".cc", ".cxx", ".h", ".hpp"}) {
    if (path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext) return "//";
  }
  return "#";
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
  std::vector<Expectation> missing;  // `expect` / `known-false`, not reported
  std::vector<Actual> unexpected;    // reported, not expected
  // `known-miss` markers that a finding now satisfies: the tool was fixed, flip them to `expect`.
  std::vector<Expectation> now_reported;
  bool ok() const { return missing.empty() && unexpected.empty() && now_reported.empty(); }
};

// One expectation matches one finding. The most specific expectations (column and fragment)
// choose first, so a loose expectation cannot take the finding a precise one needs. `expect`
// and `known-false` markers must each take a finding; a `known-miss` marker must find none
// left over.
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
    if (expectations[i].kind == Kind::KnownMiss) continue;
    for (size_t a = 0; a < actuals.size(); ++a) {
      if (!used[a] && satisfies(actuals[a], expectations[i])) {
        used[a] = true;
        met[i] = true;
        break;
      }
    }
  }
  MatchResult result;
  for (size_t i : order) {
    if (expectations[i].kind != Kind::KnownMiss) continue;
    for (size_t a = 0; a < actuals.size(); ++a) {
      if (!used[a] && satisfies(actuals[a], expectations[i])) {
        used[a] = true;
        result.now_reported.push_back(expectations[i]);
        break;
      }
    }
  }
  for (size_t i = 0; i < expectations.size(); ++i) {
    if (!met[i] && expectations[i].kind != Kind::KnownMiss) {
      result.missing.push_back(expectations[i]);
    }
  }
  for (size_t a = 0; a < actuals.size(); ++a) {
    if (!used[a]) result.unexpected.push_back(actuals[a]);
  }
  return result;
}

// Precision and recall of the tool against the ground truth the markers record: `expect` is a
// true positive, `known-false` a false positive, `known-miss` a false negative.
struct Tally {
  size_t tp = 0;
  size_t fp = 0;
  size_t fn = 0;

  void add(Kind kind) {
    switch (kind) {
      case Kind::Expect:
        ++tp;
        break;
      case Kind::KnownFalse:
        ++fp;
        break;
      case Kind::KnownMiss:
        ++fn;
        break;
    }
  }
  Tally& operator+=(const Tally& other) {
    tp += other.tp;
    fp += other.fp;
    fn += other.fn;
    return *this;
  }
  // Empty when undefined (no finding reported, or none in the ground truth).
  std::optional<double> precision() const {
    if (tp + fp == 0) return std::nullopt;
    return static_cast<double>(tp) / static_cast<double>(tp + fp);
  }
  std::optional<double> recall() const {
    if (tp + fn == 0) return std::nullopt;
    return static_cast<double>(tp) / static_cast<double>(tp + fn);
  }
};

// Per-code tallies of a set of expectations, keyed by code (sorted).
inline std::map<std::string, Tally> tally(const std::vector<Expectation>& expectations) {
  std::map<std::string, Tally> by_code;
  for (const Expectation& e : expectations) by_code[e.code].add(e.kind);
  return by_code;
}

// A fixed-width table: one row per code and an `all` row.
inline std::string format_precision_table(const std::map<std::string, Tally>& by_code) {
  auto ratio = [](std::optional<double> value) {
    if (!value) return std::string("    -");
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%5.3f", *value);
    return std::string(buffer);
  };
  auto row = [&](const std::string& name, const Tally& t) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%-6s %5zu %5zu %5zu  %9s  %6s\n", name.c_str(), t.tp,
                  t.fp, t.fn, ratio(t.precision()).c_str(), ratio(t.recall()).c_str());
    return std::string(buffer);
  };
  std::string out = "code      TP    FP    FN  precision  recall\n";
  Tally all;
  for (const auto& [code, t] : by_code) {
    out += row(code, t);
    all += t;
  }
  out += row("all", all);
  return out;
}

}  // namespace gpulint::expect

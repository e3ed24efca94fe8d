#include "analyzer/report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {
namespace {

// Ruff expands tabs to 4 columns; users comparing the two tools see the same layout.
constexpr uint32_t kTabWidth = 4;
// Lines wider than this are cut to a window around the span, so a minified file does not
// flood the terminal.
constexpr uint32_t kMaxLineColumns = 200;
constexpr uint32_t kWindowContext = 40;
constexpr uint32_t kMaxUnderline = 100;
constexpr std::string_view kEllipsis = "...";

struct Style {
  std::string_view bold, gutter, code, help, reset;
};

Style style_for(const Diagnostic& diagnostic, const TextOptions& options) {
  if (!options.color) return {};
  const std::string_view code =
      diagnostic.severity == Severity::Error ? "\x1b[1;31m" : "\x1b[1;33m";
  return {"\x1b[1m", "\x1b[1;34m", code, "\x1b[1;36m", "\x1b[0m"};
}

// Decodes the code point at `i` and moves past it, the way SourceFile counts columns: every
// byte that is not a UTF-8 continuation byte starts a code point, so a count here always
// matches Position::column, even on malformed text (whose code points become U+FFFD).
uint32_t next_code_point(std::string_view text, size_t& i) {
  const size_t start = i++;
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  const auto lead = static_cast<unsigned char>(text[start]);
  const size_t want = lead < 0x80             ? 1
                      : (lead & 0xE0) == 0xC0 ? 2
                      : (lead & 0xF0) == 0xE0 ? 3
                      : (lead & 0xF8) == 0xF0 ? 4
                                              : 0;
  if (want != i - start) return 0xFFFD;
  uint32_t value = want == 1 ? lead : lead & (0x7F >> want);
  for (size_t k = start + 1; k < i; ++k) value = (value << 6) | (text[k] & 0x3F);
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  const bool valid = value >= kMin[want] && value <= 0x10FFFF && (value < 0xD800 || value > 0xDFFF);
  return valid ? value : 0xFFFD;
}

// Code points in `text`, counting no further than `limit`.
uint32_t count_code_points(std::string_view text, uint32_t limit) {
  uint32_t count = 0;
  for (size_t i = 0; i < text.size() && count < limit; ++count) next_code_point(text, i);
  return count;
}

// Terminal cells a code point takes: the East Asian wide ranges and emoji take two, combining
// marks none. Enough to keep carets under CJK string literals and comments.
uint32_t cell_width(uint32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F)) {
    return 0;
  }
  const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
                    (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                    (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
                    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                    (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                    (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
  return wide ? 2 : 1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_control(uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp < 0xA0); }

// Appends a code point as the terminal should see it: control characters (ESC above all)
// become visible Control Pictures and malformed bytes U+FFFD, so a source file can neither
// drive the user's terminal nor break the UTF-8 of the report.
void append_visible(std::string& out, uint32_t cp) {
  if (cp < 0x20) {
    append_utf8(out, 0x2400 + cp);
  } else if (cp == 0x7F) {
    append_utf8(out, 0x2421);
  } else if (is_control(cp)) {
    append_utf8(out, 0xFFFD);
  } else {
    append_utf8(out, cp);
  }
}

// Messages and paths are one line in the header; keep them so whatever they contain.
std::string visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) append_visible(out, next_code_point(text, i));
  return out;
}

struct Snippet {
  std::string text;          // the shown part of the line, tabs expanded
  uint32_t caret_begin = 0;  // terminal cells from the start of `text`
  uint32_t caret_end = 0;
};

// How far into a source line the previous window started. Diagnostics arrive sorted by line
// and column, so resuming from here renders thousands of findings on one minified line in
// linear rather than quadratic time.
struct LineCursor {
  std::string_view path;
  uint32_t line = 0;
  size_t byte = 0;
  uint32_t index = 0;  // code points before `byte`
};

// Renders a line, or a window of a long one, and finds the cells under the code points
// [begin, end) of the span (0-based). Reads no further into the line than the window.
Snippet render_line(std::string_view line, uint32_t begin, uint32_t end, LineCursor& cursor) {
  end = std::max(end, begin);
  uint32_t first = 0;
  uint32_t last = UINT32_MAX;
  if (count_code_points(line, kMaxLineColumns + 1) > kMaxLineColumns) {
    end = std::min(end, begin + kMaxUnderline);
    first = begin > kWindowContext ? begin - kWindowContext : 0;
    last = end + kWindowContext;
  }

  Snippet snippet;
  uint32_t cells = 0;
  if (first > 0) {
    snippet.text += kEllipsis;
    cells += static_cast<uint32_t>(kEllipsis.size());
  }
  if (cursor.index > first) cursor.byte = cursor.index = 0;
  for (; cursor.byte < line.size() && cursor.index < first; ++cursor.index) {
    next_code_point(line, cursor.byte);
  }
  size_t byte = cursor.byte;
  uint32_t index = cursor.index;
  bool caret_begun = false;
  for (; byte < line.size() && index < last; ++index) {
    const uint32_t cp = next_code_point(line, byte);
    if (index == begin) snippet.caret_begin = cells, caret_begun = true;
    if (index == end) snippet.caret_end = cells;
    if (cp == '\t') {
      const uint32_t stop = (cells / kTabWidth + 1) * kTabWidth;
      snippet.text.append(stop - cells, ' ');
      cells = stop;
    } else {
      append_visible(snippet.text, cp);
      cells += is_control(cp) ? 1 : cell_width(cp);
    }
  }
  if (byte < line.size()) snippet.text += kEllipsis;
  // A span past the shown text (on the line end, or beyond a line the front end cut short)
  // points just after it.
  if (!caret_begun) snippet.caret_begin = cells;
  if (end >= index) snippet.caret_end = cells;
  // An empty span, or one that sits on the line end, still gets one caret to point with.
  snippet.caret_end = std::max(snippet.caret_end, snippet.caret_begin + 1);
  return snippet;
}

void render_one(std::string& out, const Diagnostic& d, const TextOptions& options,
                LineCursor& cursor) {
  const Style s = style_for(d, options);
  const Location& at = d.location;
  out += fmt::format("{}{}{}:{}{}:{}{}: {}{}{} [{}] {}\n", s.bold, visible(at.path), s.reset,
                     s.bold, at.start.line, at.start.column, s.reset, s.code, d.code, s.reset,
                     d.name, visible(d.message));

  const uint32_t begin = std::max(at.start.column, 1u) - 1;
  // A span that runs onto later lines is underlined to the end of its first line.
  const uint32_t end = at.end.line > at.start.line ? UINT32_MAX : std::max(at.end.column, 1u) - 1;
  if (cursor.path != at.path || cursor.line != at.start.line) {
    cursor = {at.path, at.start.line};
  }
  const Snippet snippet = render_line(d.source_line, begin, end, cursor);
  const std::string number = std::to_string(at.start.line);
  const std::string pad(number.size() + 2, ' ');
  out += fmt::format("{}  {} |{}", s.gutter, number, s.reset);
  if (!snippet.text.empty()) out += fmt::format(" {}", snippet.text);
  out += '\n';
  out += fmt::format("{}{} |{} {}{}{}{}\n", s.gutter, pad, s.reset,
                     std::string(snippet.caret_begin, ' '), s.code,
                     std::string(snippet.caret_end - snippet.caret_begin, '^'), s.reset);

  if (!d.help.empty()) {
    out += fmt::format("{} = {}help{}: {}\n", pad, s.help, s.reset, visible(d.help));
  }
  if (d.cost) {
    out += fmt::format("{} = {}cost{}: {}\n", pad, s.help, s.reset, visible(d.cost->summary));
  }
  if (d.observed) {
    out +=
        fmt::format("{} = {}observed{}: {}\n", pad, s.help, s.reset, visible(d.observed->summary));
  }
  for (const Related& related : d.related) {
    const Location& r = related.location;
    out += fmt::format("{} = {}note{}: {}:{}:{}: {}\n", pad, s.help, s.reset, visible(r.path),
                       r.start.line, r.start.column, visible(related.message));
  }
}

std::string plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The closing lines of the text and concise reports.
void render_summary(std::string& out, const std::vector<Diagnostic>& diagnostics,
                    const ReportSummary& summary) {
  std::set<std::string_view> paths;
  for (const Diagnostic& d : diagnostics) paths.insert(d.location.path);
  if (summary.fixed > 0) out += fmt::format("Fixed {}.\n", plural(summary.fixed, "finding"));
  if (!diagnostics.empty()) {
    out += fmt::format("Found {} in {}.\n", plural(diagnostics.size(), "finding"),
                       plural(paths.size(), "file"));
  } else if (summary.file_errors.empty()) {
    out += fmt::format("All checks passed! ({} checked)\n", plural(summary.files_checked, "file"));
  } else {
    out += fmt::format("No findings in {} checked.\n", plural(summary.files_checked, "file"));
  }
  // The errors themselves go to stderr; the count here keeps a partial check from reading as
  // a clean one.
  if (!summary.file_errors.empty()) {
    out += fmt::format("Could not check {}.\n", plural(summary.file_errors.size(), "path"));
  }
}

}  // namespace

std::string render_text(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                        const TextOptions& options) {
  std::string out;
  LineCursor cursor;
  for (const Diagnostic& d : diagnostics) {
    render_one(out, d, options, cursor);
    out += '\n';
  }
  if (options.summary) render_summary(out, diagnostics, summary);
  return out;
}

std::string render_concise(const std::vector<Diagnostic>& diagnostics, const ReportSummary& summary,
                           const TextOptions& options) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    const Style s = style_for(d, options);
    out += fmt::format("{}{}:{}:{}:{} {}{}{} {}\n", s.bold, visible(d.location.path),
                       d.location.start.line, d.location.start.column, s.reset, s.code, d.code,
                       s.reset, visible(d.message));
  }
  if (options.summary) render_summary(out, diagnostics, summary);
  return out;
}

std::string render_statistics(const std::vector<Diagnostic>& diagnostics) {
  struct Count {
    std::string_view name;
    size_t findings = 0, fixable = 0;
  };
  std::map<std::string_view, Count> by_code;
  for (const Diagnostic& d : diagnostics) {
    Count& count = by_code[d.code];
    count.name = d.name;
    ++count.findings;
    count.fixable += d.fix.has_value();
  }
  std::vector<std::pair<std::string_view, Count>> rows(by_code.begin(), by_code.end());
  // Most frequent first, as Ruff orders them; by code among equals.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.findings > b.second.findings;
  });
  size_t width = 1;
  for (const auto& [code, count] : rows)
    width = std::max(width, std::to_string(count.findings).size());
  std::string out;
  for (const auto& [code, count] : rows) {
    out += fmt::format("{:>{}}  {}  {}", count.findings, width, code, count.name);
    if (count.fixable > 0) out += fmt::format(" ({} with a fix)", count.fixable);
    out += '\n';
  }
  return out;
}

}  // namespace gpulint

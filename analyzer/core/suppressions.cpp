#include "analyzer/core/suppressions.h"

#include <algorithm>
#include <cctype>

namespace gpulint {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads codes such as `GL101, GL2` or `GL101 GL102` up to the first character that cannot
// belong to a code list.
std::vector<std::string> read_codes(std::string_view s) {
  std::vector<std::string> codes;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ',' || s[i] == ' ' || s[i] == '\t')) ++i;
    size_t start = i;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) break;
    // Codes are read in any case, as on the command line and in config files.
    std::string code(s.substr(start, i - start));
    for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    codes.push_back(std::move(code));
  }
  return codes;
}

uint32_t next_code_line(const SourceFile& file, uint32_t line) {
  for (uint32_t l = line + 1; l <= file.line_count(); ++l) {
    std::string_view text = trim(file.line_text(l));
    if (!text.empty() && text.front() != '#' && !text.starts_with("//")) return l;
  }
  return line + 1;
}

}  // namespace

Suppressions Suppressions::parse(const SourceFile& file, const std::vector<Comment>& comments) {
  Suppressions out;
  for (const Comment& comment : comments) {
    std::string_view text =
        file.text().substr(comment.span.begin, comment.span.end - comment.span.begin);
    const uint32_t line = file.line_of(comment.span.begin);
    const uint32_t target = comment.own_line ? next_code_line(file, line) : line;
    for (size_t at = text.find("gpulint:"); at != std::string_view::npos;
         at = text.find("gpulint:", at + 1)) {
      std::string_view rest = trim(text.substr(at + 8));
      bool whole_file = rest.starts_with("file-ignore");
      if (!whole_file && !rest.starts_with("ignore")) continue;
      rest.remove_prefix(whole_file ? 11 : 6);
      Entry entry{whole_file ? 0u : target, {}, comment.span, false};
      if (rest.starts_with("[")) {
        size_t close = rest.find(']');
        entry.codes = read_codes(
            rest.substr(1, close == std::string_view::npos ? rest.size() - 1 : close - 1));
      }
      out.entries_.push_back(std::move(entry));
    }
    for (size_t at = text.find("noqa"); at != std::string_view::npos;
         at = text.find("noqa", at + 1)) {
      std::string_view rest = text.substr(at + 4);
      if (!rest.starts_with(":")) continue;
      std::vector<std::string> codes = read_codes(trim(rest.substr(1)));
      std::erase_if(codes, [](const std::string& c) { return !c.starts_with("GL"); });
      if (!codes.empty()) out.entries_.push_back({line, std::move(codes), comment.span, false});
    }
    // clang-tidy's forms, for C++: `// NOLINT(gpulint-GL101)`, `// NOLINTNEXTLINE(gpulint-GL101)`.
    // Only codes named with the `gpulint-` prefix count: a bare NOLINT is meant for clang-tidy.
    for (size_t at = text.find("NOLINT"); at != std::string_view::npos;
         at = text.find("NOLINT", at + 1)) {
      std::string_view rest = text.substr(at + 6);
      const bool next_line = rest.starts_with("NEXTLINE");
      if (next_line) rest.remove_prefix(8);
      if (!rest.starts_with("(")) continue;
      rest = rest.substr(
          1, rest.find(')') == std::string_view::npos ? rest.size() - 1 : rest.find(')') - 1);
      std::vector<std::string> codes;
      for (size_t g = rest.find("gpulint-"); g != std::string_view::npos;
           g = rest.find("gpulint-", g + 1)) {
        std::vector<std::string> named = read_codes(rest.substr(g + 8));
        if (!named.empty() && named.front().starts_with("GL")) codes.push_back(named.front());
      }
      if (!codes.empty()) {
        out.entries_.push_back(
            {next_line ? line + 1 : line, std::move(codes), comment.span, false});
      }
    }
  }
  return out;
}

bool Suppressions::suppressed(std::string_view code, uint32_t line) {
  bool any = false;
  for (Entry& e : entries_) {
    if (e.line != 0 && e.line != line) continue;
    bool covers =
        e.codes.empty() || std::any_of(e.codes.begin(), e.codes.end(),
                                       [&](const std::string& c) { return code.starts_with(c); });
    if (covers) any = e.used = true;
  }
  return any;
}

}  // namespace gpulint

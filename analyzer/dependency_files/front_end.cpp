#include "analyzer/dependency_files/front_end.h"

#include <algorithm>
#include <cctype>

namespace gpulint::deps {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Token boundaries for requirement specifiers, URLs and YAML list items.
bool is_token_char(char c) {
  return !is_space(c) && c != '"' && c != '\'' && c != ',' && c != '[' && c != ']' && c != '{' &&
         c != '}';
}

Span token_around(std::string_view text, size_t at, size_t line_begin, size_t line_end) {
  size_t b = at, e = at;
  while (b > line_begin && is_token_char(text[b - 1])) --b;
  while (e < line_end && is_token_char(text[e])) ++e;
  return {static_cast<uint32_t>(b), static_cast<uint32_t>(e)};
}

// Where the comment starts: `#` at the line start or after whitespace (a URL fragment such
// as `#egg=` is not a comment).
size_t comment_start(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) return i;
  }
  return std::string_view::npos;
}

// `https://download.pytorch.org/whl/cu121` anywhere in the file.
bool names_cuda_index(std::string_view text) {
  constexpr std::string_view kIndex = "download.pytorch.org/whl/cu";
  for (size_t at = text.find(kIndex); at != std::string_view::npos;
       at = text.find(kIndex, at + 1)) {
    const size_t digit = at + kIndex.size();
    if (digit < text.size() && std::isdigit(static_cast<unsigned char>(text[digit]))) return true;
  }
  return false;
}

}  // namespace

StepModel build_model(std::string_view text) {
  StepModel m;
  m.add_scope(ScopeKind::Module, kNoScope);
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    size_t hash = comment_start(line);
    if (hash != std::string_view::npos) {
      std::string_view before = line.substr(0, hash);
      bool own_line = std::all_of(before.begin(), before.end(), is_space);
      m.comments.push_back(
          {{static_cast<uint32_t>(begin + hash), static_cast<uint32_t>(end)}, own_line});
      line = before;
    }
    const size_t code_end = begin + line.size();
    auto pin = [&](size_t at) {
      Span s = token_around(text, at, begin, code_end);
      m.cpu_torch_pins.push_back({s, std::string(text.substr(s.begin, s.end - s.begin))});
    };
    // `torch==2.3.0+cpu`, `torchvision==0.18.0+cpu`
    for (size_t at = line.find("+cpu"); at != std::string_view::npos;
         at = line.find("+cpu", at + 4)) {
      size_t after = at + 4;
      bool ends = after >= line.size() || !std::isalnum(static_cast<unsigned char>(line[after]));
      if (ends && line.substr(0, at).find("torch") != std::string_view::npos) pin(begin + at);
    }
    // `--index-url https://download.pytorch.org/whl/cpu`, `-f .../whl/cpu/torch_stable.html`,
    // unless the file names a CUDA wheel index too: then it offers both builds (uv extras or
    // markers choosing between them), and the CPU one is no pin.
    if (size_t at = line.find("download.pytorch.org/whl/cpu"); at != std::string_view::npos) {
      size_t after = at + 28;
      if ((after >= line.size() || line[after] == '/' ||
           !std::isalnum(static_cast<unsigned char>(line[after]))) &&
          !names_cuda_index(text)) {
        pin(begin + at);
      }
    }
    // conda: `- cpuonly`, `- pytorch::cpuonly`
    if (size_t at = line.find("cpuonly"); at != std::string_view::npos) {
      std::string_view head = line.substr(0, at);
      size_t dash = head.find_first_not_of(" \t");
      bool item = dash != std::string_view::npos && head[dash] == '-';
      bool whole = at + 7 >= line.size() || !std::isalnum(static_cast<unsigned char>(line[at + 7]));
      if (item && whole) pin(begin + at);
    }
    begin = end + 1;
  }
  return m;
}

}  // namespace gpulint::deps

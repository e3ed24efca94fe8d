#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/core/source_file.h"
#include "analyzer/core/step_model.h"

namespace gpulint {

// Suppression comments of one file:
//   `# gpulint: ignore[GL101, GL2]` / `# gpulint: ignore` — trailing: its own line; alone on a
//   line: the next line that holds code;
//   `# gpulint: file-ignore[GL201]` — the whole file;
//   `# noqa: GL101` (trailing, its own line), as Ruff and flake8 users expect; bare `# noqa`
//   is left to other tools and suppresses nothing here.
// Codes match as prefixes (`GL1` covers GL101).
class Suppressions {
 public:
  static Suppressions parse(const SourceFile& file, const std::vector<Comment>& comments);
  // Whether a finding is suppressed; records which comments did suppress something.
  bool suppressed(std::string_view code, uint32_t line);
  // Comments that suppressed nothing, among those whose codes are all enabled (a comment for
  // a rule that did not run cannot be judged), for GL001.
  // Codes that name no rule (`GL999`, `BOGUS`: `known` says which do), with their comments.
  template <class Known>
  std::vector<std::pair<Span, std::string>> unknown_codes(Known&& known) const {
    std::vector<std::pair<Span, std::string>> out;
    for (const Entry& e : entries_) {
      for (const std::string& c : e.codes) {
        if (!known(c)) out.emplace_back(e.comment, c);
      }
    }
    return out;
  }
  template <class Enabled>
  std::vector<Span> unused(Enabled&& enabled) const {
    std::vector<Span> out;
    for (const Entry& e : entries_) {
      bool judged = true;
      for (const std::string& c : e.codes) judged = judged && enabled(c);
      if (judged && !e.used) out.push_back(e.comment);
    }
    return out;
  }

 private:
  struct Entry {
    uint32_t line = 0;               // 0: the whole file
    std::vector<std::string> codes;  // empty: every code
    Span comment;
    bool used = false;
  };
  std::vector<Entry> entries_;
};

}  // namespace gpulint

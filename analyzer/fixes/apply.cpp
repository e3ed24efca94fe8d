#include "analyzer/fixes/apply.h"

#include "analyzer/core/libgit2.h"

#include <algorithm>

namespace gpulint {

FixedText apply_fixes(std::string_view text, const std::vector<const Diagnostic*>& diagnostics,
                      bool unsafe) {
  std::vector<const Fix*> fixes;
  for (const Diagnostic* d : diagnostics) {
    if (!d->fix || d->fix->edits.empty()) continue;
    if (d->fix->applicability == Applicability::Unsafe && !unsafe) continue;
    fixes.push_back(&*d->fix);
  }
  auto first_edit = [](const Fix* f) {
    uint32_t begin = UINT32_MAX;
    for (const Edit& e : f->edits) begin = std::min(begin, e.span.begin);
    return begin;
  };
  std::stable_sort(fixes.begin(), fixes.end(),
                   [&](const Fix* a, const Fix* b) { return first_edit(a) < first_edit(b); });
  std::vector<const Edit*> taken;
  auto overlaps = [](const Edit& a, const Edit& b) {
    // Two insertions at one place overlap too: their order would be a guess.
    return (a.span.begin < b.span.end && b.span.begin < a.span.end) || a.span.begin == b.span.begin;
  };
  FixedText out;
  for (const Fix* fix : fixes) {
    bool clear = true;
    for (size_t i = 0; i < fix->edits.size() && clear; ++i) {
      const Edit& edit = fix->edits[i];
      if (edit.span.begin > edit.span.end || edit.span.end > text.size()) clear = false;
      for (const Edit* t : taken) clear = clear && !overlaps(edit, *t);
      for (size_t j = 0; j < i; ++j) clear = clear && !overlaps(edit, fix->edits[j]);
    }
    if (!clear) continue;
    for (const Edit& edit : fix->edits) taken.push_back(&edit);
    ++out.applied;
  }
  std::sort(taken.begin(), taken.end(),
            [](const Edit* a, const Edit* b) { return a->span.begin < b->span.begin; });
  size_t at = 0;
  for (const Edit* edit : taken) {
    out.text.append(text.substr(at, edit->span.begin - at));
    out.text.append(edit->replacement);
    at = edit->span.end;
  }
  out.text.append(text.substr(at));
  return out;
}

std::string unified_diff(const std::string& path, std::string_view before, std::string_view after) {
  const Libgit2* git = libgit2();
  if (before == after || git == nullptr) return {};
  git_patch* patch = nullptr;
  std::string out;
  if (git->patch_from_buffers(&patch, before.data(), before.size(), path.c_str(), after.data(),
                              after.size(), path.c_str(), nullptr) == 0) {
    git_buf buf = GIT_BUF_INIT;
    if (git->patch_to_buf(&buf, patch) == 0) out.assign(buf.ptr, buf.size);
    git->buf_dispose(&buf);
    git->patch_free(patch);
  }
  // libgit2 writes git's headers (`diff --git a/x b/x`, `index ...`, `--- a/x`); a linter's diff
  // names the file as it is, as Ruff's does.
  std::string result;
  size_t line_start = 0;
  while (line_start < out.size()) {
    size_t end = out.find('\n', line_start);
    end = end == std::string::npos ? out.size() : end + 1;
    const std::string_view line(out.data() + line_start, end - line_start);
    if (line.starts_with("diff --git ") || line.starts_with("index ")) {
      // dropped
    } else if (line.starts_with("--- a/") || line.starts_with("+++ b/")) {
      result.append(line.substr(0, 4)).append(line.substr(6));
    } else {
      result.append(line);
    }
    line_start = end;
  }
  return result;
}

}  // namespace gpulint

#include "server/code_actions.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyzer/core/language.h"
#include "analyzer/report/explain.h"
#include "rules/registry.h"

namespace gpulint::server {
namespace {

using Json = nlohmann::json;

Json position_json(LspPosition p) { return {{"line", p.line}, {"character", p.character}}; }

Json range_json(const LineIndex& index, Span span) {
  return {{"start", position_json(index.position(span.begin))},
          {"end", position_json(index.position(span.end))}};
}

Json text_edit(const LineIndex& index, Span span, const std::string& text) {
  return {{"range", range_json(index, span)}, {"newText", text}};
}

Json action(const ActionInput& in, std::string title, const char* kind, Json edits,
            const Json& diagnostic, bool preferred) {
  Json a = {{"title", std::move(title)},
            {"kind", kind},
            {"edit", {{"changes", {{in.uri, std::move(edits)}}}}}};
  if (!diagnostic.is_null()) a["diagnostics"] = Json::array({diagnostic});
  if (preferred) a["isPreferred"] = true;
  return a;
}

// The byte range of the (1-based) line `line`, without its line break.
Span line_span(std::string_view text, uint32_t line) {
  size_t start = 0;
  for (uint32_t l = 1; l < line && start < text.size(); ++l) {
    const size_t eol = text.find('\n', start);
    start = eol == std::string_view::npos ? text.size() : eol + 1;
  }
  size_t end = std::min(text.find('\n', start), text.size());
  if (end > start && text[end - 1] == '\r') --end;
  return {static_cast<uint32_t>(start), static_cast<uint32_t>(end)};
}

// `# gpulint: ignore[CODE]` at the end of the finding's line; on a line of its own above it
// where the line goes on with a backslash (a comment there would end the statement).
Json suppress_on_line(const ActionInput& in, const Diagnostic& d, const std::string& prefix) {
  const Span line = line_span(in.text, d.location.start.line);
  const std::string_view content(in.text.data() + line.begin, line.end - line.begin);
  const size_t last = content.find_last_not_of(" \t");
  if (last != std::string_view::npos && content[last] == '\\') {
    const size_t indent = std::min(content.find_first_not_of(" \t"), content.size());
    return text_edit(
        in.index, {line.begin, line.begin},
        fmt::format("{}{} gpulint: ignore[{}]\n", content.substr(0, indent), prefix, d.code));
  }
  return text_edit(in.index, {line.end, line.end},
                   fmt::format("  {} gpulint: ignore[{}]", prefix, d.code));
}

// `# gpulint: file-ignore[CODE]` at the top, after a shebang and an encoding declaration.
Json suppress_in_file(const ActionInput& in, const Diagnostic& d, const std::string& prefix) {
  uint32_t at = 0;
  for (int line = 1; line <= 2; ++line) {
    const Span s = line_span(in.text, static_cast<uint32_t>(line));
    const std::string_view content(in.text.data() + s.begin, s.end - s.begin);
    const bool keep = (line == 1 && content.starts_with("#!")) ||
                      (content.starts_with("#") && content.find("coding") != std::string::npos);
    if (!keep || s.begin != at) break;
    at = s.end < in.text.size() ? s.end + (in.text[s.end] == '\r' ? 2 : 1) : s.end;
  }
  return text_edit(in.index, {at, at},
                   fmt::format("{} gpulint: file-ignore[{}]\n", prefix, d.code));
}

bool wanted(const std::vector<std::string>& only, std::string_view kind) {
  return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& o) {
           return kind == o || (kind.starts_with(o) && kind[o.size()] == '.');
         });
}

}  // namespace

Json lsp_diagnostic(const Diagnostic& d, const LineIndex& index, Workspace& workspace,
                    Encoding encoding) {
  Json out = {{"range", range_json(index, d.location.span)},
              {"severity", d.severity == Severity::Error ? 1 : 2},
              {"code", d.code},
              {"source", "gpulint"},
              {"message", d.help.empty() ? d.message : d.message + "\nhelp: " + d.help}};
  if (d.fix) out["data"] = {{"fix", d.fix->message}};
  Json related = Json::array();
  for (const Related& r : d.related) {
    const LineIndex other(workspace.disk_text(r.location.path), encoding);
    related.push_back(
        {{"location",
          {{"uri", uri_of_path(r.location.path)}, {"range", range_json(other, r.location.span)}}},
         {"message", r.message}});
  }
  if (!related.empty()) out["relatedInformation"] = std::move(related);
  return out;
}

std::string hover_markdown(const Diagnostic& d, Workspace& workspace) {
  std::string text = fmt::format("**{}** ({}): {}\n\n", d.code, d.name, d.message);
  if (const std::optional<std::string> cost = workspace.measured_cost(d.code)) {
    text += fmt::format("**Measured cost:** {}\n\n", *cost);
  }
  if (const Rule* rule = find_rule(d.code)) {
    std::string docs = explain_text(rule->info);
    // The rule's title is the hover's first line already.
    if (docs.starts_with("# ")) docs.erase(0, docs.find_first_not_of('\n', docs.find('\n')));
    text += docs;
  }
  while (text.ends_with("\n")) text.pop_back();
  return text;
}

Json code_actions_for(const ActionInput& in, Span range, const std::vector<std::string>& only) {
  Json actions = Json::array();
  const std::string prefix = language_of(in.path) == Language::Cpp ? "//" : "#";
  bool any_safe_fix = false;
  for (const Diagnostic& d : in.diagnostics) {
    any_safe_fix = any_safe_fix || (d.fix && d.fix->applicability == Applicability::Safe);
    if (d.location.span.end < range.begin || d.location.span.begin > range.end) continue;
    if (!wanted(only, "quickfix")) continue;
    const Json diagnostic = lsp_diagnostic(d, in.index, in.workspace, in.encoding);
    if (d.fix) {
      Json edits = Json::array();
      for (const Edit& e : d.fix->edits)
        edits.push_back(text_edit(in.index, e.span, e.replacement));
      const bool safe = d.fix->applicability == Applicability::Safe;
      actions.push_back(action(in,
                               fmt::format("{}: {}{}", d.code, d.fix->message,
                                           safe ? "" : " (unsafe: may change what it computes)"),
                               "quickfix", std::move(edits), diagnostic, safe));
    }
    actions.push_back(action(in, fmt::format("{}: suppress on this line", d.code), "quickfix",
                             Json::array({suppress_on_line(in, d, prefix)}), diagnostic, false));
    actions.push_back(action(in, fmt::format("{}: suppress in this file", d.code), "quickfix",
                             Json::array({suppress_in_file(in, d, prefix)}), diagnostic, false));
  }
  if (any_safe_fix && wanted(only, kFixAllKind) && in.fix_all) {
    if (const std::optional<std::string> fixed = in.fix_all(); fixed && *fixed != in.text) {
      actions.push_back(action(
          in, "gpulint: fix all (safe fixes)", kFixAllKind,
          Json::array({text_edit(in.index, {0, static_cast<uint32_t>(in.text.size())}, *fixed)}),
          nullptr, false));
    }
  }
  return actions;
}

}  // namespace gpulint::server

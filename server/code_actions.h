#pragma once

// A finding as the editor sees it: the LSP diagnostic, the hover text, and the code actions
// that fix it or suppress it.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "server/text_positions.h"
#include "server/workspace.h"

namespace gpulint::server {

constexpr const char* kFixAllKind = "source.fixAll.gpulint";

nlohmann::json lsp_diagnostic(const Diagnostic& d, const LineIndex& index, Workspace& workspace,
                              Encoding encoding);

// The rule's documentation, and what `gpulint verify` measured for it where it has run.
std::string hover_markdown(const Diagnostic& d, Workspace& workspace);

struct ActionInput {
  std::string uri;
  std::string path;
  const std::string& text;
  const std::vector<Diagnostic>& diagnostics;  // of `text`
  const LineIndex& index;
  Encoding encoding;
  Workspace& workspace;
  std::function<std::optional<std::string>()> fix_all;  // the text with every safe fix applied
};

// For the findings that overlap `range`: apply the fix (safe and unsafe told apart), suppress
// the code on this line, suppress it in this file; and fix all, where the file has safe fixes.
// `only`, when not empty, keeps the kinds that start with one of its entries.
nlohmann::json code_actions_for(const ActionInput& input, Span range,
                                const std::vector<std::string>& only);

}  // namespace gpulint::server

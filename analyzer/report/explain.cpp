#include "analyzer/report/explain.h"

#include <fmt/format.h>

namespace gpulint {

std::string explain_text(const RuleInfo& info) {
  const std::string_view default_label = info.default_on ? "on" : "opt-in";
  std::string text = fmt::format("# {} ({})\n\n{}\n\nFamily: {}. Default: {}.", info.name,
                                 info.code, info.summary, info.family, default_label);
  if (!info.default_on) text += fmt::format(" Enable it with `--select {}`.", info.code);
  text += "\n";
  if (!info.help.empty()) text += fmt::format("Fix: {}\n", info.help);
  if (!info.help_cpp.empty()) text += fmt::format("Fix in C++: {}\n", info.help_cpp);
  if (!info.docs.empty()) text += fmt::format("\n{}\n", info.docs);
  // Docs written as a raw string often end in a newline already; print exactly one.
  while (text.ends_with("\n\n")) text.pop_back();
  return text;
}

}  // namespace gpulint

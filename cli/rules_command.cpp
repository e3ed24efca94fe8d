// `gpulint rules` and `gpulint explain CODE`: the rule catalogue and one rule's docs.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analyzer/report/explain.h"
#include "cli/output.h"
#include "cli/subcommand.h"
#include "rules/registry.h"
#include "verifier/harness/costs.h"

namespace gpulint {
namespace {

std::string_view default_label(const RuleInfo& info) { return info.default_on ? "on" : "opt-in"; }

int run_rules(const std::string& format) {
  const auto rules = all_rules();
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Rule* rule : rules) {
      const RuleInfo& info = rule->info;
      list.push_back({{"code", info.code},
                      {"name", info.name},
                      {"family", info.family},
                      {"default", default_label(info)},
                      {"severity", info.severity == Severity::Error ? "error" : "warning"},
                      {"summary", info.summary},
                      {"help", info.help},
                      {"help_cpp", info.help_cpp},
                      {"docs", info.docs}});
      // The two figures `gpulint verify` takes its cost from, at the default parameters
      // (verifier/crosscheck/compare.py reads them).
      if (const auto spec = verifier::cost_spec(info.code, verifier::Params{})) {
        list.back()["measure"] = {{"experiment", spec->experiment},
                                  {"bad", spec->bad},
                                  {"good", spec->good},
                                  {"what", spec->what}};
      }
    }
    return write_stdout(list.dump(2) + "\n") ? kExitClean : kExitError;
  }

  size_t widths[4] = {4, 4, 6, 7};  // the header words: CODE NAME FAMILY DEFAULT
  for (const Rule* rule : rules) {
    widths[0] = std::max(widths[0], rule->info.code.size());
    widths[1] = std::max(widths[1], rule->info.name.size());
    widths[2] = std::max(widths[2], rule->info.family.size());
  }
  std::string table = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  SUMMARY\n", "CODE", widths[0],
                                  "NAME", widths[1], "FAMILY", widths[2], "DEFAULT", widths[3]);
  for (const Rule* rule : rules) {
    const RuleInfo& info = rule->info;
    table += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", info.code, widths[0], info.name,
                         widths[1], info.family, widths[2], default_label(info), widths[3],
                         info.summary);
  }
  return write_stdout(table) ? kExitClean : kExitError;
}

int run_explain(std::string code) {
  // Codes are upper case; `gpulint explain gl101` is an easy slip to forgive.
  std::transform(code.begin(), code.end(), code.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const Rule* rule = find_rule(code);
  if (rule == nullptr) {
    error(fmt::format("unknown rule code `{}`; `gpulint rules` lists the codes", code));
    return kExitError;
  }
  const std::string text = explain_text(rule->info);
  return write_stdout(text) ? kExitClean : kExitError;
}

}  // namespace

Subcommand add_rules(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("rules", "List the rules");
  cmd->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {cmd, [format] { return run_rules(*format); }};
}

Subcommand add_explain(CLI::App& app) {
  auto code = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("explain", "Show a rule's documentation");
  cmd->add_option("code", *code, "A rule code, e.g. GL101")->required();
  return {cmd, [code] { return run_explain(*code); }};
}

}  // namespace gpulint

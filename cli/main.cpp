// The command line: `gpulint [check] PATH...` and the other subcommands, one file each.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/suggest.h"
#include "cli/output.h"
#include "cli/subcommand.h"

namespace gpulint {
namespace {

bool is_plain_word(std::string_view word) {
  return std::all_of(word.begin(), word.end(),
                     [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
                              c == '_';
                     }) &&
         word.front() != '-';
}

// After "the following argument was not expected": the flag each unknown one was meant to be,
// among the flags of the subcommand given (args[1]).
void suggest_options(CLI::App& app, const std::vector<char*>& args) {
  const std::string_view name = args.size() > 1 ? args[1] : "";
  const std::vector<CLI::App*> named =
      app.get_subcommands([&](const CLI::App* s) { return s->get_name() == name; });
  const CLI::App* sub = named.empty() ? nullptr : named.front();
  std::vector<std::string> flags;
  for (const CLI::App* scope : {static_cast<const CLI::App*>(&app), sub}) {
    if (scope == nullptr) continue;
    for (const CLI::Option* option : scope->get_options()) {
      for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    }
  }
  for (size_t i = 2; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), arg) != flags.end()) continue;
    if (const std::string best = closest(arg, flags); !best.empty()) {
      error(fmt::format("unknown option `{}`; did you mean `{}`?", arg, best));
    }
  }
}

int run(int argc, char** argv) {
  CLI::App app{"gpulint: finds the PyTorch code (Python and LibTorch C++) that leaves a GPU idle",
               "gpulint"};
  app.set_version_flag("--version", std::string("gpulint ") + GPULINT_VERSION);
  app.require_subcommand(1);

  const std::vector<Subcommand> subcommands = {
      add_check(app),  add_rules(app), add_explain(app), add_verify(app),
      add_doctor(app), add_watch(app), add_profile(app), add_server(app),
  };

  std::vector<std::string> commands;
  for (const Subcommand& sub : subcommands) commands.push_back(sub.command->get_name());

  // `gpulint PATH...` means `gpulint check PATH...`, and `gpulint` alone `gpulint check .`:
  // insert the subcommand unless the first argument already names one or asks for help or the
  // version.
  std::vector<char*> args(argv, argv + argc);
  const std::string_view first = argc > 1 ? argv[1] : "";
  const bool is_subcommand = std::find(commands.begin(), commands.end(), first) != commands.end();
  if (!is_subcommand && first != "-h" && first != "--help" && first != "--version") {
    // A plain word that names no file is a command mistyped, not a path (`gpulint chek`).
    std::error_code ec;
    if (!first.empty() && is_plain_word(first) && !std::filesystem::exists(first, ec)) {
      error(fmt::format("`{}` is no file and no gpulint command (commands: {}){}", first,
                        fmt::join(commands, ", "), did_you_mean(first, commands)));
      return kExitError;
    }
    static char check_word[] = "check";
    args.insert(args.begin() + 1, check_word);
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ExtrasError& e) {
    app.exit(e);
    suggest_options(app, args);
    return kExitError;
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help and --version and its own codes for errors; the contract
    // says 2 for every usage error.
    return app.exit(e) == 0 ? kExitClean : kExitError;
  }

  for (const Subcommand& sub : subcommands) {
    if (sub.command->parsed()) return sub.run();
  }
  return kExitError;  // unreachable: require_subcommand(1) makes the parse fail first
}

}  // namespace
}  // namespace gpulint

int main(int argc, char** argv) { return gpulint::run(argc, argv); }

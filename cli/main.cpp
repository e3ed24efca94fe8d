// The command line: `gpulint [check] PATH...` and the other subcommands, one file each.

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "cli/subcommand.h"

namespace gpulint {
namespace {

int run(int argc, char** argv) {
  CLI::App app{"gpulint: finds the PyTorch code that leaves a GPU idle", "gpulint"};
  app.set_version_flag("--version", std::string("gpulint ") + GPULINT_VERSION);
  app.require_subcommand(1);

  const std::vector<Subcommand> subcommands = {
      add_check(app),
      add_rules(app),
      add_explain(app),
      add_verify(app),
      add_doctor(app),
      add_watch(app),
  };

  // `gpulint PATH...` means `gpulint check PATH...`: insert the subcommand unless the first
  // argument already names one or asks for help or the version.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 1) {
    const std::string_view first = argv[1];
    const bool is_subcommand =
        !app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == first; }).empty();
    if (!is_subcommand && first != "-h" && first != "--help" && first != "--version") {
      static char check_word[] = "check";
      args.insert(args.begin() + 1, check_word);
    }
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
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

#pragma once

// One subcommand of the command line: each lives in its own file and registers its options
// on the app; main.cpp only lists them and runs the one that was parsed.

#include <CLI/CLI.hpp>
#include <functional>

namespace gpulint {

struct Subcommand {
  CLI::App* command;         // owned by the app
  std::function<int()> run;  // returns the exit code
};

Subcommand add_check(CLI::App& app);
Subcommand add_rules(CLI::App& app);
Subcommand add_explain(CLI::App& app);
Subcommand add_verify(CLI::App& app);
Subcommand add_doctor(CLI::App& app);
Subcommand add_watch(CLI::App& app);
Subcommand add_profile(CLI::App& app);
Subcommand add_server(CLI::App& app);

}  // namespace gpulint

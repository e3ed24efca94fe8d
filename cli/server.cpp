// `gpulint server`: the Language Server Protocol over stdin and stdout (server/session.h).

#include <unistd.h>

#include "cli/output.h"
#include "cli/subcommand.h"
#include "server/session.h"

namespace gpulint {

Subcommand add_server(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "server", "Speak the Language Server Protocol on stdin and stdout, for editors");
  cmd->footer(
      "Findings of the unsaved text as you type, fixes and suppressions as code actions, and each "
      "rule's documentation on hover. Editors start it themselves: README, \"Editors\".");
  return {cmd, [] { return server::run_session(STDIN_FILENO, STDOUT_FILENO); }};
}

}  // namespace gpulint

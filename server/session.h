#pragma once

// `gpulint server`: one Language Server Protocol session over a pair of file descriptors.
// Documents are linted as they are typed (their unsaved text, with the workspace's other
// files read for cross-module context), and their findings published; code actions apply a
// finding's fix or suppress it, hover shows the rule's documentation and, where `gpulint verify`
// has run, its measured cost.

namespace gpulint::server {

// Runs until the client sends `exit`, or its input closes; returns the process's exit code:
// 0 after a `shutdown`, 1 without one (as the protocol says).
int run_session(int in, int out);

}  // namespace gpulint::server

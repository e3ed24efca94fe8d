#pragma once

// Child processes: the user's command under `watch` (its stdio inherited) and the Python probe
// under `doctor` (its output captured, with a time limit).

#include <chrono>
#include <string>
#include <vector>

namespace gpulint::system {

// The shell's convention: 126 found but not runnable, 127 not found, 128+N killed by signal N.
constexpr int kExitCannotExecute = 126;
constexpr int kExitNotFound = 127;
constexpr int kExitSignalBase = 128;

struct ChildExit {
  int code = 0;
  std::string error;  // set when the command could not be started at all
};

// Runs argv[0] (searched on PATH) with this process's stdin, stdout and stderr, and waits.
// SIGINT and SIGTERM sent to gpulint by another process are passed on to the child; those a
// terminal sends reach the child through its process group already, so they are not doubled.
ChildExit run_inheriting_stdio(const std::vector<std::string>& argv);

struct CapturedRun {
  int code = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
  std::string error;  // could not be started
};

// Runs argv with stdin from /dev/null and stdout/stderr captured; kills it after `limit`.
CapturedRun run_capturing(const std::vector<std::string>& argv, std::chrono::milliseconds limit);

}  // namespace gpulint::system

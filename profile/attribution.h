#pragma once

// Where the GPU's idle time in the profiled steps went, and which of the user's lines caused it.
//
// Per step: its length, the GPU busy (the union of kernels, copies and memsets), and the idle
// rest, split by what the host did meanwhile: waiting for a batch (data), or its own work. A
// step with synchronising calls cannot run ahead of the GPU, so the host's work there leaves
// the GPU idle; the synchronising lines act together: while one remains, the host still waits
// every step, so removing any one alone saves little, and removing all of them lets the host's
// work overlap the GPU's. What that saves is predicted as the step's length against the longer
// of the host's work (the step less its waits for the GPU) and the GPU's.

#include <optional>
#include <vector>

#include "profile/run_record.h"

namespace gpulint::profile {

// Means over the window's steps, in microseconds.
struct StepBreakdown {
  int steps = 0;
  double step_us = 0;
  double gpu_busy_us = 0;
  double gpu_idle_us = 0;
  double idle_waiting_for_data_us = 0;  // idle while the host waited for the next batch
  double idle_host_work_us = 0;         // the rest of the idle: the host busy with its own work
  double sync_wait_us = 0;              // host time spent waiting for the GPU
};

struct LineCost {
  SourceLine where;
  HostWait::Kind kind = HostWait::Kind::Sync;
  SyncCause cause = SyncCause::Unknown;  // what the line's first wait did
  double waits_per_step = 0;
  double wait_us_per_step = 0;
  double gpu_idle_us_per_step = 0;  // for a data wait: the GPU idle during it
};

// The synchronising lines of the window, which act together.
struct SyncGroup {
  std::vector<SourceLine> lines;
  double saving_us_per_step = 0;  // predicted, removing all of them
  double step_without_us = 0;     // the step predicted without them
};

struct Attribution {
  StepBreakdown breakdown;
  std::vector<LineCost> lines;  // largest cost first
  std::optional<SyncGroup> syncs;
};

Attribution attribute(const Trace& trace);

}  // namespace gpulint::profile

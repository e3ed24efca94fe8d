#pragma once

// Where the GPU's idle time in the profiled steps went, which of the user's lines caused it,
// and what fixing them would save.
//
// Per step: its length, the GPU busy (the union of kernels, copies and memsets), and the idle
// rest, split by what the host did meanwhile: waiting for a batch (data), or its own work.
//
// A step with synchronising calls cannot run ahead of the GPU, so the host's work there leaves
// the GPU idle; the synchronising lines act together: while one remains, the host still waits
// every step, so removing one alone saves only the time the line itself holds the host while
// the GPU has nothing to do (a print formatting a tensor, a copy's round trip). Removing all of
// them lets the rest of the host's work overlap the GPU's: the step becomes the longer of the
// two. A wait for a batch, removed, shortens the step by the wait, down to the GPU's work. The
// GPU's work is its busy time and the gaps it leaves between operations even when they are
// queued (a few microseconds each), measured between every two operations of which the second
// was launched before the first ended (on an H100 a GPU-bound loop's fixed step read 0.6 ms
// over its busy time: about 1.2 us before each of 520 operations).
//
// The profiler slows the host (it records every operator); the GPU's work it leaves alone. Its
// overhead is the profiled step against the warm-up's, timed without the profiler, and savings
// are against the latter. As the overhead lengthens the step only where the GPU idles
// (elsewhere the host is ahead), the host's times while the GPU idles (a wait for a batch, a
// line's own time) shrink in proportion: the idle time less the overhead, over the idle time.
// Measured on an H100 (README, "Profile"): a data wait predicted within a few percent where
// unscaled it was 71% over. The host's work outside the synchronising lines is read two ways,
// and each overstates it where the other does not, so the smaller is taken: the profiled
// step's host work less the overhead, which overstates it where the GPU is the slower side (the
// profiler's overhead then hides in the waits, which it shortens, and the step lengthens by
// less than the overhead: on an H100 a loop's host work read 21 ms that way, about 11 ms in
// truth); and the warm-up's step less the time sampled at those lines there, both without the
// profiler, which overstates it where the waits are shorter than the sampling interval (they
// go unseen).

#include <optional>
#include <vector>

#include "profile/run_record.h"

namespace gpulint::profile {

// Means over the window's steps, in microseconds.
struct StepBreakdown {
  int steps = 0;
  double step_us = 0;             // under the profiler
  double unprofiled_step_us = 0;  // without it, from the warm-up; step_us where not timed
  double gpu_busy_us = 0;
  double gpu_idle_us = 0;
  double idle_waiting_for_data_us = 0;  // idle while the host waited for the next batch
  double idle_host_work_us = 0;         // the rest of the idle: the host busy with its own work
  double sync_wait_us = 0;              // host time spent waiting for the GPU
  // Of the host's idle share: short gaps between one GPU operation and the next, outside the
  // marked lines, where the GPU waits for the host to launch its next operation.
  double idle_between_launches_us = 0;
  double gpu_ops = 0;  // kernels, copies and memsets a step
  double median_gpu_op_us = 0;
  // The GPU's own gap from one operation to the next where it had the next queued: measured
  // between operations whose launch came before the one ahead ended (in traces that tie the
  // two), else while the host waited for the GPU (none was launched meanwhile); a mean per
  // operation.
  double queued_gap_us = 0;
  // What the GPU's work takes when the host keeps it fed: busy, and the gap before each op.
  double gpu_work_us() const { return gpu_busy_us + gpu_ops * queued_gap_us; }
  // Copies to the GPU a step, from pageable and from pinned host memory.
  double pageable_copies = 0, pageable_bytes = 0, pageable_copy_us = 0;
  double pinned_copies = 0, pinned_bytes = 0, pinned_copy_us = 0;
};

// Gaps between GPU operations up to this long, with the host busy elsewhere than in a marked
// line, are launch gaps: the GPU finished its last operation before the host had queued the
// next. Longer ones are the host's other work (Python, the loss's bookkeeping).
constexpr double kLaunchGapUs = 100;

struct LineCost {
  SourceLine where;
  HostWait::Kind kind = HostWait::Kind::Sync;
  SyncCause cause = SyncCause::Unknown;  // what the line's first wait did
  double waits_per_step = 0;
  double wait_us_per_step = 0;
  double gpu_idle_us_per_step = 0;  // for a data wait: the GPU idle during it
  double own_idle_us_per_step = 0;  // the GPU idle while the host was in this line
  double saving_us_per_step = 0;    // predicted, fixing this line alone
};

// The synchronising lines of the window, which act together.
struct SyncGroup {
  std::vector<SourceLine> lines;
  double saving_us_per_step = 0;  // predicted, removing all of them
  double step_without_us = 0;     // the step predicted without them
};

// The host's own work at a line while the GPU idled, outside the marked lines: the idle time
// there shared out by where the sampled host thread was.
struct HostLine {
  SourceLine where;
  int samples = 0;                  // of the host's idle-time samples, at this line
  double gpu_idle_us_per_step = 0;  // the unmarked idle time, this line's share of it
};

struct Attribution {
  StepBreakdown breakdown;
  std::vector<LineCost> lines;  // largest cost first
  std::optional<SyncGroup> syncs;
  std::vector<HostLine> host_lines;  // largest first
  int host_samples = 0;              // samples taken while the host worked and the GPU idled
};

// `samples` on the trace's clock (placed_samples); `unprofiled_lines` the warm-up's.
Attribution attribute(const Trace& trace, std::optional<double> unprofiled_step_us = {},
                      std::vector<HostSample> samples = {},
                      const std::vector<LineTime>& unprofiled_lines = {});

// What the GPU was doing at each moment of a step, and while it was idle, why: the host
// waiting for a batch, in one of the synchronising lines, or at its other work.
struct Segment {
  enum class Kind { Busy, Data, Line, Host };
  Kind kind = Kind::Busy;
  Interval when;
  SourceLine where;  // for Data and Line; for Host, the line sampled most in it, if any
  SyncCause cause = SyncCause::Unknown;
};

struct Timeline {
  std::vector<Interval> steps;
  std::vector<Segment> segments;  // in time order, covering the steps
};

// The first `steps` steps of the trace; `samples` on the trace's clock.
Timeline timeline(const Trace& trace, size_t steps, std::vector<HostSample> samples = {});

}  // namespace gpulint::profile

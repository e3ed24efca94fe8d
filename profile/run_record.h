#pragma once

// What `gpulint profile`'s shim (profile/shim/sitecustomize.py) leaves for one process: the
// PyTorch profiler's trace of the window of steps (Kineto's Chrome-trace JSON) and the window's
// own record (window-rankN.json). Only what the attribution reads is kept.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::profile {

// Microseconds on the trace's clock.
struct Interval {
  double start = 0;
  double end = 0;
  double length() const { return end - start; }
};

struct SourceLine {
  std::string file;  // absolute, as the program ran it
  int line = 0;
  friend auto operator<=>(const SourceLine&, const SourceLine&) = default;
};

// Synchronising calls counted by the shim at one user line, over the whole window.
struct SyncSite {
  SourceLine where;
  std::string function;
  int64_t count = 0;
};

// Where the thread that ran the steps was, sampled: its innermost line in the user's files.
struct HostSample {
  double at_us = 0;  // on the host's clock (Window) or the trace's (placed_samples)
  SourceLine where;
};

// The host's time a step at one user line over the warm-up's timed steps, without the
// profiler: the samples there, each standing for the time since the one before.
struct LineTime {
  SourceLine where;
  double us_per_step = 0;
};

struct Window {
  int rank = 0;
  int warmup = 0;
  int steps = 0;            // complete steps recorded
  std::string step_source;  // what ended a step: "optimizer", "backward" or "batch"
  // The warm-up's step on the host without the profiler (the median of its last half).
  std::optional<double> unprofiled_step_us;
  std::vector<LineTime> unprofiled_lines;
  std::vector<SyncSite> syncs;
  std::vector<double> mark_us;  // the host's clock as each step mark began
  std::vector<HostSample> samples;
  std::string torch;
  bool cuda = false;
  std::string error;  // the shim's own failure, if any
};

// What a synchronising call did, from the torch operators around it and the copy it made.
enum class SyncCause {
  Unknown,
  ValueRead,     // aten::item, or a tensor's value read on the host otherwise
  Branch,        // aten::is_nonzero: Python branching on a tensor
  DynamicShape,  // nonzero, masked_select, unique: the output's size read back
  CopyToHost,    // a device-to-host copy
  CopyToDevice,  // a host-to-device copy from pageable memory
  Synchronize,   // torch.cuda.synchronize
  Print,         // print of a tensor
};

// The host waiting: for the GPU to catch up (a synchronising call), or for the next batch.
struct HostWait {
  enum class Kind { Sync, Data };
  Kind kind = Kind::Sync;
  Interval when;     // the wait itself
  Interval span;     // the line's whole host time: the operator around the wait, the print
  SourceLine where;  // the user's line, from the shim's mark
  SyncCause cause = SyncCause::Unknown;
};

// A copy from the host to the GPU, as the GPU ran it.
struct DeviceCopy {
  Interval when;
  int64_t bytes = 0;
  bool pageable = false;  // from pageable memory: the host waits for it, and it cannot overlap
};

struct Trace {
  std::vector<Interval> steps;  // the shim's step marks, in order
  std::vector<Interval> gpu;    // kernels, copies and memsets, sorted by start
  // For each of `gpu`, when the host's call that launched it returned; NaN where the trace
  // does not tie the two (no correlation id).
  std::vector<double> gpu_launched;
  std::vector<DeviceCopy> to_device;  // host-to-device copies, sorted by start
  std::vector<HostWait> waits;        // on the thread that ran the steps, sorted by start
};

// Both return nullopt and say why in `error` when the text is not what the shim writes.
std::optional<Window> read_window(std::string_view json, std::string* error);
std::optional<Trace> read_trace(std::string_view json, std::string* error);

// The window's samples on the trace's clock: the two clocks differ by the median gap between
// a step mark's start in the trace and the host's clock as the shim began it. None where the
// window has no step mark times.
std::vector<HostSample> placed_samples(const Window& window, const Trace& trace);

}  // namespace gpulint::profile

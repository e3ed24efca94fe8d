#pragma once

// Names the shape of a GPU's utilisation over a run, and what usually causes it: a pure
// function of the trace, so recorded traces test it without a GPU.

#include <string>
#include <string_view>
#include <vector>

#include "watch/trace.h"

namespace gpulint::system {

enum class Shape {
  Unknown,        // too little was sampled to tell
  Idle,           // the GPU was never used
  Healthy,        // high and steady
  SawTooth,       // periodic drops: the GPU waits for data
  FlatLow,        // steadily below high: syncs or tiny kernels
  SpikeThenZero,  // a burst of GPU work, then the rest of the run on the CPU
};

std::string_view shape_name(Shape shape);

// A stretch at the start or the end of the run in which the GPU did nothing while the run went
// on: named whatever the shape of the rest (a healthy loop followed by 20 s of CPU work is
// healthy while it runs, and still leaves the GPU idle for a third of the job).
struct IdleSegment {
  enum class Where { Head, Tail };
  Where where = Where::Tail;
  double start_s = 0;
  double length_s = 0;
  double share = 0;  // of the run, 0..1
};

std::string describe(const IdleSegment& segment);

struct Diagnosis {
  Shape shape = Shape::Unknown;
  unsigned gpu_index = 0;
  double share = 0;                // share of the judged time that shows the shape, 0..1
  double mean_utilization = 0;     // over the judged time, percent
  int drops = 0;                   // saw-tooth: drops counted
  double drop_period_s = 0;        // saw-tooth: mean time from one drop to the next
  std::string summary;             // what was seen, with the numbers
  std::string cause;               // what usually makes this shape
  std::vector<std::string> rules;  // the gpulint rules that find those causes in the code
  std::vector<IdleSegment> idle;   // a long idle head or tail, in time order
};

// One GPU's series: t_ms and utilisation (percent, NaN where unread) of equal length.
Diagnosis classify(const std::vector<double>& t_ms, const std::vector<double>& utilization);

// Every GPU of the trace, in trace order.
std::vector<Diagnosis> diagnose(const Trace& trace);

}  // namespace gpulint::system

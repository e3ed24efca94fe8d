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
};

// One GPU's series: t_ms and utilisation (percent, NaN where unread) of equal length.
Diagnosis classify(const std::vector<double>& t_ms, const std::vector<double>& utilization);

// Every GPU of the trace, in trace order.
std::vector<Diagnosis> diagnose(const Trace& trace);

}  // namespace gpulint::system

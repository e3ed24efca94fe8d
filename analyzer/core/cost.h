#pragma once

// What `gpulint verify` measured for a finding on the local GPU. The verifier fills it; the
// analyzer only carries it to the reporters, so this header is all the verifier (and the
// profiler) shares with it.

#include <string>

namespace gpulint {

struct Cost {
  std::string experiment;  // the verifier experiment that measured it, e.g. "sync"
  double value = 0;        // the headline figure, in `unit`
  std::string unit;        // e.g. "us/step", "x"
  std::string summary;     // one sentence for people: "+38 us a step (x2.1) on NVIDIA H200"
  std::string device;      // the GPU it was measured on
};

// What `gpulint profile` saw of a finding in the user's own run. The profiler fills it; the
// analyzer only carries it to the reporters.
struct Observed {
  bool seen = false;              // false: the line ran no synchronising call or wait in the window
  double per_step = 0;            // how often a step, where seen
  double wait_ms_per_step = 0;    // host time waiting there, a step
  double share_of_step = 0;       // that wait (where sampled, the GPU idle) over the step, 0-1
  double saving_ms_per_step = 0;  // predicted, fixing this line alone (not where sampled)
  double gpu_idle_ms_per_step = 0;  // the GPU idle while the host was at this line
  int samples = 0;                  // > 0: found by sampling the host's line, not counted
  std::string summary;              // one sentence for people
};

}  // namespace gpulint

#pragma once

// What `gpulint verify` measured for a finding on the local GPU. The verifier fills it; the
// analyzer only carries it to the reporters, so this header is all the verifier shares with it.

#include <string>

namespace gpulint {

struct Cost {
  std::string experiment;  // the verifier experiment that measured it, e.g. "sync"
  double value = 0;        // the headline figure, in `unit`
  std::string unit;        // e.g. "us/step", "x"
  std::string summary;     // one sentence for people: "+38 us a step (x2.1) on NVIDIA H200"
  std::string device;      // the GPU it was measured on
};

}  // namespace gpulint

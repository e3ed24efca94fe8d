#pragma once

// The step profiles sync and debug time their variants on: K kernels a step whose GPU time
// goes from below the launch cost (launch-bound) to far above it (compute-bound).

#include <array>
#include <string>

namespace gpulint::verifier {

struct StepProfile {
  const char* name;   // the id prefix: "launch", "balanced", "compute"
  const char* label;  // for people
  double kernel_us;   // GPU time of each kernel (0: an empty kernel)
};

inline constexpr std::array<StepProfile, 3> kStepProfiles = {{
    {"launch", "launch-bound (empty kernels)", 0},
    {"balanced", "balanced (5 us kernels)", 5},
    {"compute", "compute-bound (50 us kernels)", 50},
}};

// Steps a sample times: the requested count, fewer for long steps so a sample stays near
// 20 ms, never under 10.
inline int steps_per_sample(int requested, int kernels, double kernel_us) {
  const double step_us = kernels * (kernel_us > 2 ? kernel_us : 2.0);
  int steps = static_cast<int>(20000.0 / step_us);
  if (steps > requested) steps = requested;
  return steps < 10 ? 10 : steps;
}

}  // namespace gpulint::verifier

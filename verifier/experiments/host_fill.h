#pragma once

// The host side of GL303's "fill on the CPU, then copy": the same algorithms PyTorch's CPU
// factories run, so the verifier's host figure is PyTorch's, not a slower stand-in.

#include <cstddef>
#include <random>

namespace gpulint::verifier {

// torch.randn on the CPU: 24-bit uniforms from one mt19937, serially, then Box-Muller on
// blocks of 16 (8 pairs) vectorised, as ATen's normal_fill does.
void fill_normal(float* out, size_t n, std::mt19937& rng);

// torch.zeros on the CPU: a fill spread over every core (ATen's parallel_for).
void fill_zeros(float* out, size_t n);

}  // namespace gpulint::verifier

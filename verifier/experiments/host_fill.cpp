// Built with -ffast-math (CMakeLists.txt) so that the Box-Muller loop vectorises through
// glibc's libmvec, as ATen vectorises it through Sleef.

#include "verifier/experiments/host_fill.h"

#include <math.h>
#include <algorithm>

#include <cstring>
#include <thread>
#include <vector>

namespace gpulint::verifier {
namespace {

float uniform24(std::mt19937& rng) {
  return static_cast<float>(rng() & ((1u << 24) - 1)) * (1.0f / 16777216.0f);
}

constexpr float kTwoPi = 6.2831853071795864f;

// Box-Muller on `blocks` blocks of 16: u1 from each block's first half, u2 from its second, as
// ATen's normal_fill_16. Gathered into plain arrays and done one function per loop, so that
// GCC vectorises each loop (it does not vectorise a loop that calls both sin and cos).
void box_muller_blocks(float* d, size_t blocks) {
  constexpr size_t kMax = 256;
  float u1[kMax * 8], u2[kMax * 8], radius[kMax * 8], s[kMax * 8], c[kMax * 8];
  for (size_t done = 0; done < blocks; done += kMax) {
    const size_t nb = std::min(kMax, blocks - done);
    float* base = d + done * 16;
    for (size_t b = 0; b < nb; ++b) {
      for (size_t j = 0; j < 8; ++j) {
        u1[b * 8 + j] = base[b * 16 + j];
        u2[b * 8 + j] = base[b * 16 + 8 + j];
      }
    }
    const size_t n = nb * 8;
    for (size_t i = 0; i < n; ++i) radius[i] = sqrtf(-2.0f * logf(1.0f - u1[i]));
    for (size_t i = 0; i < n; ++i) s[i] = sinf(kTwoPi * u2[i]);
    for (size_t i = 0; i < n; ++i) c[i] = cosf(kTwoPi * u2[i]);
    for (size_t b = 0; b < nb; ++b) {
      for (size_t j = 0; j < 8; ++j) {
        base[b * 16 + j] = radius[b * 8 + j] * c[b * 8 + j];
        base[b * 16 + 8 + j] = radius[b * 8 + j] * s[b * 8 + j];
      }
    }
  }
}

}  // namespace

void fill_normal(float* out, size_t n, std::mt19937& rng) {
  for (size_t i = 0; i < n; ++i) out[i] = uniform24(rng);
  if (n < 16) {
    for (size_t i = 0; i + 1 < n; i += 2) {
      const float r = sqrtf(-2.0f * logf(1.0f - out[i]));
      const float theta = kTwoPi * out[i + 1];
      out[i] = r * cosf(theta);
      out[i + 1] = r * sinf(theta);
    }
    return;
  }
  box_muller_blocks(out, n / 16);
  if (n % 16 != 0) {
    // The tail: fresh uniforms for the last 16, transformed again (ATen does the same).
    for (size_t i = n - 16; i < n; ++i) out[i] = uniform24(rng);
    box_muller_blocks(out + n - 16, 1);
  }
}

void fill_zeros(float* out, size_t n) {
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (size_t start = 0; start < n; start += chunk) {
    const size_t count = std::min(chunk, n - start);
    pool.emplace_back([=] { std::memset(out + start, 0, count * sizeof(float)); });
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace gpulint::verifier

#include "verifier/experiments/cpu_gemm.h"

#ifdef GPULINT_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace gpulint::verifier {

#ifdef GPULINT_HAVE_OPENBLAS

void cpu_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c,
              static_cast<int>(n));
}

std::string cpu_gemm_name() {
  return std::string("OpenBLAS (") + openblas_get_config() + ", " +
         std::to_string(openblas_get_num_threads()) + " threads)";
}

#else

namespace {

// The register tile: MR rows of A times NR columns of B, NR two vectors wide, accumulated in
// 2 * MR vector registers (12 of the 16 AVX2 / 32 AVX-512 registers).
#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr const char* kIsa = "AVX-512";
#elif defined(__AVX2__)
constexpr int kLanes = 8;
constexpr const char* kIsa = "AVX2";
#else
constexpr int kLanes = 4;
constexpr const char* kIsa = "SSE";
#endif
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
constexpr int MR = 6;
constexpr int NR = 2 * kLanes;
constexpr int64_t KC = 256;   // a packed B panel row stays in L1
constexpr int64_t MC = 96;    // the packed A block stays in L2
constexpr int64_t NC = 2048;  // the packed B panel stays in L2/L3

Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// C[MR x NR] += Ap[kc x MR] . Bp[kc x NR], both packed.
void micro_kernel(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int mr,
                  int nr) {
  Vec acc[MR][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const Vec b0 = load(bp + p * NR), b1 = load(bp + p * NR + kLanes);
    for (int i = 0; i < MR; ++i) {
      const float a = ap[p * MR + i];
      acc[i][0] += a * b0;
      acc[i][1] += a * b1;
    }
  }
  alignas(64) float tile[MR][NR];
  for (int i = 0; i < MR; ++i) {
    std::memcpy(&tile[i][0], &acc[i][0], sizeof(Vec));
    std::memcpy(&tile[i][kLanes], &acc[i][1], sizeof(Vec));
  }
  for (int i = 0; i < mr; ++i) {
    for (int j = 0; j < nr; ++j) c[i * ldc + j] += tile[i][j];
  }
}

// Rows [m0, m1) of C, all columns: each thread packs its own panels.
void gemm_rows(int64_t m0, int64_t m1, int64_t n, int64_t k, const float* a, const float* b,
               float* c) {
  std::vector<float> bp(static_cast<size_t>(KC * (NC + NR)));
  std::vector<float> ap(static_cast<size_t>((MC + MR) * KC));
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      for (int64_t jr = 0; jr < nc; jr += NR) {
        float* dst = bp.data() + jr * kc;
        const int64_t nr = std::min<int64_t>(NR, nc - jr);
        for (int64_t p = 0; p < kc; ++p) {
          const float* src = b + (pc + p) * n + jc + jr;
          for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = j < nr ? src[j] : 0.0f;
        }
      }
      for (int64_t ic = m0; ic < m1; ic += MC) {
        const int64_t mc = std::min(MC, m1 - ic);
        for (int64_t ir = 0; ir < mc; ir += MR) {
          float* dst = ap.data() + ir * kc;
          const int64_t mr = std::min<int64_t>(MR, mc - ir);
          for (int64_t p = 0; p < kc; ++p) {
            for (int64_t i = 0; i < MR; ++i) {
              dst[p * MR + i] = i < mr ? a[(ic + ir + i) * k + pc + p] : 0.0f;
            }
          }
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          for (int64_t ir = 0; ir < mc; ir += MR) {
            micro_kernel(kc, ap.data() + ir * kc, bp.data() + jr * kc, c + (ic + ir) * n + jc + jr,
                         n, static_cast<int>(std::min<int64_t>(MR, mc - ir)),
                         static_cast<int>(std::min<int64_t>(NR, nc - jr)));
          }
        }
      }
    }
  }
}

int threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

}  // namespace

void cpu_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  std::fill(c, c + m * n, 0.0f);
  const int t = static_cast<int>(std::min<int64_t>(threads(), (m + MR - 1) / MR));
  // Row blocks of whole MR tiles, as even as they divide.
  const int64_t tiles = (m + MR - 1) / MR;
  std::vector<std::thread> pool;
  int64_t start = 0;
  for (int i = 0; i < t; ++i) {
    const int64_t end = std::min(m, (tiles * (i + 1) / t) * MR);
    if (end > start) pool.emplace_back(gemm_rows, start, end, n, k, a, b, c);
    start = end;
  }
  for (std::thread& th : pool) th.join();
}

std::string cpu_gemm_name() {
  return std::string("builtin blocked SGEMM (") + kIsa + ", " + std::to_string(threads()) +
         " threads; OpenBLAS not found at build time)";
}

#endif

}  // namespace gpulint::verifier

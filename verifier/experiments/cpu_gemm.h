#pragma once

// The CPU side of the placement experiment: an FP32 GEMM on every core. OpenBLAS where the
// build found it; otherwise the verifier's own blocked, multithreaded SGEMM (README.md says
// which ran: the report's device.cpu_gemm).

#include <cstdint>
#include <string>

namespace gpulint::verifier {

// Row-major C[m x n] = A[m x k] . B[k x n].
void cpu_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);

// "OpenBLAS 0.3.21 ..." or "builtin blocked SGEMM (AVX-512, 16 threads)".
std::string cpu_gemm_name();

}  // namespace gpulint::verifier

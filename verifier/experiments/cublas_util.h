#pragma once

// cuBLAS and cuBLASLt status codes as exceptions, and an owning cuBLAS handle.

#include <cublas_v2.h>

#include "verifier/experiments/cuda_util.h"

namespace gpulint::verifier {

[[noreturn]] void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line);

#define GPULINT_CUBLAS(call)                                                         \
  do {                                                                               \
    const cublasStatus_t gpulint_status_ = (call);                                   \
    if (gpulint_status_ != CUBLAS_STATUS_SUCCESS) {                                  \
      ::gpulint::verifier::throw_cublas(gpulint_status_, #call, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    GPULINT_CUBLAS(cublasCreate(&h_));
    GPULINT_CUBLAS(cublasSetStream(h_, stream));
  }
  ~CublasHandle() { cublasDestroy(h_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace gpulint::verifier

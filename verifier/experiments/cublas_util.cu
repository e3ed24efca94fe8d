#include <cstdio>

#include "verifier/experiments/cublas_util.h"

namespace gpulint::verifier {

void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (%s at %s:%d)", cublasGetStatusString(status), call, file,
                line);
  throw CudaError(buf);
}

}  // namespace gpulint::verifier

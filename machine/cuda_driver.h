#pragma once

// The CUDA driver API (libcuda.so.1) opened at run time: the CUDA version the driver supports
// and how many devices a process started with this environment would see.

#include "machine/gpu_facts.h"

namespace gpulint::system {

// Calls cuInit, which honours CUDA_VISIBLE_DEVICES, so the count is what the user's program
// would get; it creates no context and takes no device memory.
CudaDriverFacts read_cuda_driver_facts();

}  // namespace gpulint::system

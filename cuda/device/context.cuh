// Typed per-device handles for .cu files (see cuda/runtime/context.h). Launch kernels and library
// calls on stream(device), never on the legacy default stream: the stream is created
// non-blocking, so the default stream does not order against it.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>

#include "harmonic/cuda/runtime/context.h"

namespace hm::cuda {

cudaStream_t stream(int device);
cublasHandle_t cublas(int device);      // bound to stream(device)
cublasLtHandle_t cublaslt(int device);  // pass stream(device) to cublasLtMatmul
cudnnHandle_t cudnn(int device);        // bound to stream(device)

// Scratch memory for cublasLtMatmul (allocated once per device from the caching allocator).
struct Workspace {
  void* data = nullptr;
  size_t bytes = 0;
};
Workspace cublaslt_workspace(int device);

}  // namespace hm::cuda

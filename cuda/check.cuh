// Every CUDA, cuBLAS and cuDNN call goes through these checks: a failure becomes an
// hm::Error naming the call, the file and the line.
#pragma once
#include <cuda_runtime.h>

#include "core/error.h"

#define HM_CUDA_CHECK(call) ::hm::cuda::check_cuda((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports launch-configuration errors at the launch site.
#define HM_CUDA_CHECK_LAUNCH() ::hm::cuda::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

namespace hm::cuda {

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess)
    throw_error("cuda", fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cudaGetErrorString(status),
                                    static_cast<int>(status)));
}

}  // namespace hm::cuda

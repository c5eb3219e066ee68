// Every CUDA, cuBLAS and cuDNN call goes through these checks: a failure becomes an
// hm::Error naming the call, the file and the line. Device code only (.cu files).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>

#include "harmonic/core/error.h"

#define HM_CUDA_CHECK(call) ::hm::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define HM_CUBLAS_CHECK(call) ::hm::cuda::check_cublas((call), #call, __FILE__, __LINE__)
#define HM_CUDNN_CHECK(call) ::hm::cuda::check_cudnn((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports launch-configuration errors at the launch site. With
// HARMONIC_CUDA_SYNC=1 in the environment it also waits for the kernel, so an illegal
// address is reported at the kernel that caused it rather than at a later call.
#define HM_CUDA_CHECK_LAUNCH() ::hm::cuda::check_launch(__FILE__, __LINE__)
// For destructors and free paths, which must not throw: prints instead.
#define HM_CUDA_WARN(call) ::hm::cuda::warn_cuda((call), #call, __FILE__, __LINE__)

namespace hm::cuda {

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) [[unlikely]]
    throw_error("cuda", fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cudaGetErrorString(status),
                                    static_cast<int>(status)));
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]]
    throw_error("cublas", fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cublasGetStatusString(status),
                                      static_cast<int>(status)));
}

inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) [[unlikely]]
    throw_error("cudnn", fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cudnnGetErrorString(status),
                                     static_cast<int>(status)));
}

inline void warn_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess && status != cudaErrorCudartUnloading)
    std::fprintf(stderr, "harmonic: %s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(status));
}

bool sync_after_launch();  // HARMONIC_CUDA_SYNC=1, read once (cuda/runtime/context.cu)

inline void check_launch(const char* file, int line) {
  check_cuda(cudaGetLastError(), "kernel launch", file, line);
  if (sync_after_launch()) check_cuda(cudaDeviceSynchronize(), "kernel execution", file, line);
}

}  // namespace hm::cuda

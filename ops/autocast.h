// Mixed-precision settings of the matrix products (no CUDA headers; safe anywhere).
//
// Autocast: inside `hm::AutocastGuard guard(DType::BFloat16);` matmul and linear on CUDA
// float32 tensors run their GEMMs on bfloat16 copies of the operands with float32
// accumulation and a float32 result (cublasGemmEx, CUBLAS_COMPUTE_32F). Parameters stay
// float32 ("master weights") and the gradients that come back are float32; backward uses
// the same bf16 GEMMs whether or not the guard is still alive. The mode is thread-local and
// guards nest. On the CPU the guard changes nothing: CPU products stay float32/float64.
//
// TF32: float32 GEMMs on CUDA use full float32 math unless hm::cuda::set_allow_tf32(true)
// lets cuBLAS round the inputs to TF32 (10-bit mantissa) on tensor cores, several times
// faster on Ampere and later, with errors around 1e-3 relative.
#pragma once
#include <optional>

#include "harmonic/core/dtype.h"

namespace hm {

// The active autocast dtype of this thread (BFloat16), or nullopt when autocast is off.
std::optional<DType> autocast_dtype();

class AutocastGuard {
 public:
  // dtype must be BFloat16 (the only reduced precision the GEMMs support); nullopt turns
  // autocast off for the scope.
  explicit AutocastGuard(std::optional<DType> dtype);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  std::optional<DType> previous_;
};

// Tests only: lets CPU matmul/linear autocast too, so the CUDA kernels' host twins (which
// run the bf16 GEMM on CPU memory, cuda/runtime/emulation.h) can check the whole autocast path on
// machines without a GPU. The real CPU GEMM has no bf16 kernel.
void set_autocast_cpu_for_tests(bool on);
bool autocast_cpu_for_tests();

namespace cuda {
// Process-wide: may float32 GEMMs on CUDA use TF32 tensor cores? Off by default.
void set_allow_tf32(bool allow);
bool allow_tf32();
}  // namespace cuda

}  // namespace hm

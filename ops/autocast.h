// Mixed-precision settings of the matrix products (no CUDA headers; safe anywhere).
//
// Autocast: inside `hm::AutocastGuard guard(DType::BFloat16);` matmul and linear on CUDA
// float32 tensors run their GEMMs on bfloat16 copies of the operands with float32
// accumulation and a float32 result (cublasGemmEx, CUBLAS_COMPUTE_32F). Parameters stay
// float32 ("master weights") and the gradients that come back are float32; backward uses
// the same bf16 GEMMs whether or not the guard is still alive. The mode is thread-local and
// guards nest. On the CPU the guard changes nothing: CPU products stay float32/float64.
//
// With AutocastProducts::BFloat16 the GEMM writes its product as bfloat16, as PyTorch's
// autocast does: the ops that compute in bfloat16 (elementwise, sum, dropout, the norms;
// ops/README.md) read it as it is, a bfloat16 activation goes into the next GEMM without a
// conversion, and an op that takes float32 only widens a bfloat16 input at its entry
// (autocast_widen). The gradient of a bfloat16 activation is bfloat16; parameters and their
// gradients stay float32.
//
// TF32: float32 GEMMs on CUDA use full float32 math unless hm::cuda::set_allow_tf32(true)
// lets cuBLAS round the inputs to TF32 (10-bit mantissa) on tensor cores, several times
// faster on Ampere and later, with errors around 1e-3 relative.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "harmonic/core/dtype.h"
#include "harmonic/core/tensor.h"

namespace hm {

// The dtype a GEMM under autocast writes its product in.
enum class AutocastProducts : uint8_t { Float32, BFloat16 };

// The active autocast dtype of this thread (BFloat16), or nullopt when autocast is off.
std::optional<DType> autocast_dtype();
// The active guard's products (Float32 when autocast is off).
AutocastProducts autocast_products();

class AutocastGuard {
 public:
  // dtype must be BFloat16 (the only reduced precision the GEMMs support); nullopt turns
  // autocast off for the scope.
  explicit AutocastGuard(std::optional<DType> dtype, AutocastProducts products = AutocastProducts::Float32);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  std::optional<DType> previous_;
  AutocastProducts previous_products_;
};

// The precisions a run names (`harmonic train --precision`, `harmonic bench --precision`):
// "fp32" (no autocast: nullopt), "bf16" (bfloat16 GEMMs, float32 products) and
// "bf16-activations" (bfloat16 GEMMs writing bfloat16 products). Anything else is an
// hm::Error naming fn.
std::optional<AutocastProducts> autocast_for_precision(std::string_view precision, std::string_view fn);

// An op that computes in float32/float64 only calls this on each floating input: under
// autocast a bfloat16 tensor becomes a float32 one (a differentiable conversion, so its
// gradient returns as bfloat16); anything else passes unchanged.
Tensor autocast_widen(const Tensor& x);

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

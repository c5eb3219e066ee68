// Kernel slot of the matrix products (see core/dispatch.h). One strided, batched GEMM
// description covers plain, transposed and broadcast-batched products without copies: it
// maps onto cblas_?gemm on the CPU and cublas?gemmStridedBatched (or a loop of them over the
// outer batch dims) on CUDA.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// For every batch index: C = alpha op(A) op(B) + beta C, row-major, with op(A) (m, k),
// op(B) (k, n) and C (m, n). A is stored (m, k) with row stride lda, or (k, m) when trans_a
// (same for B). When bias is set, C = alpha op(A) op(B) + bias with bias (n) added to every
// row (beta is ignored). Pointers are element addresses on the tensors' device.
// dtype BFloat16 (autocast, CUDA only; ops/autocast.h): A and B are bfloat16, bias float32,
// C float32 or, with bf16_c, bfloat16, accumulated in float32. The CPU kernel takes float32
// and float64 only.
struct GemmDesc {
  DType dtype = DType::Float32;
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  const void* a = nullptr;
  int64_t lda = 1;
  const void* b = nullptr;
  int64_t ldb = 1;
  void* c = nullptr;
  int64_t ldc = 1;
  bool bf16_c = false;  // dtype BFloat16 only: C is bfloat16 (autocast's bfloat16 products)
  double alpha = 1.0, beta = 0.0;
  const void* bias = nullptr;  // (n) or null
  // Batch dims, outermost first, with each operand's element stride per dim (0 broadcasts
  // A or B; C's strides are never 0). Empty for a single GEMM.
  Shape batch;
  Strides batch_a, batch_b, batch_c;
};

inline Kernel<void(const GemmDesc& desc)> gemm_kernel{"gemm"};

}  // namespace hm

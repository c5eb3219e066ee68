// Matrix products on OpenBLAS (CPU) and cuBLAS (CUDA).
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// torch.matmul semantics: 1-d x 1-d dot, 2-d x 2-d GEMM, batched with broadcasting of the
// leading dims: (..., n, k) @ (..., k, m) -> (..., n, m). Float32/float64.
Tensor matmul(const Tensor& a, const Tensor& b);
// x (..., in) W (out, in) b (out) -> (..., out); bias may be undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});

}  // namespace hm

// Kernel slots of the Fourier head (ops/fourier_head.h): the fused row work around the two
// GEMMs (which go through gemm_kernel). z holds [R | I] per row, the real and imaginary
// parts of sum_l a_l e^{i pi l b_j} at the m bin centres.
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"

namespace hm {

// z (rows, 2m) contiguous -> out (rows, m) = log(q_j / sum q + 1e-5), q_j = R_j^2 + I_j^2.
inline Kernel<void(const Tensor& z, const Tensor& out)> fourier_log_pmf_kernel{"fourier_head_log_pmf"};
// z (rows, 2m), grad_out (rows, m) contiguous -> grad_z (rows, 2m) = dL/d[R | I].
inline Kernel<void(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z)> fourier_log_pmf_backward_kernel{
    "fourier_head_log_pmf_backward"};

}  // namespace hm

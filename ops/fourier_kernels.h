// Kernel slots of the Fourier head (ops/fourier_head.h): the fused row work around the two
// GEMMs (which go through gemm_kernel). The bin centres are symmetric (b_{m-1-j} = -b_j), so
// the GEMM only evaluates the first h = ceil(m/2) of them: per row z holds
// [alpha.C | alpha.S | beta.C | beta.S], each (h), with C = cos(pi l b_j), S = sin(pi l b_j),
// and the kernels rebuild both mirrored bins from them.
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"

namespace hm {

// z (rows, 4h) contiguous -> out (rows, m) = log(q_j / sum q + 1e-5), q_j = R_j^2 + I_j^2.
inline Kernel<void(const Tensor& z, const Tensor& out)> fourier_log_pmf_kernel{"fourier_head_log_pmf"};
// z (rows, 4h), grad_out (rows, m) contiguous -> grad_z (rows, 4h) = dL/dz.
inline Kernel<void(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z)> fourier_log_pmf_backward_kernel{
    "fourier_head_log_pmf_backward"};

}  // namespace hm

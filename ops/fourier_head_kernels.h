// Kernel slots of the Fourier head (ops/fourier_head.h): the fused row work around the two
// GEMMs (which go through gemm_kernel). The bin centres are symmetric (b_{m-1-j} = -b_j), so
// the GEMM only evaluates the first h = ceil(m/2) of them: per row z holds
// [alpha.C | alpha.S | beta.C | beta.S], each (h), with C = cos(pi l b_j), S = sin(pi l b_j),
// and the kernels rebuild both mirrored bins from them.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// z (rows, 4h) contiguous -> out (rows, m) = log(q_j / sum q + 1e-5), q_j = R_j^2 + I_j^2.
inline Kernel<void(const Tensor& z, const Tensor& out)> fourier_log_pmf_kernel{"fourier_head_log_pmf"};
// z (rows, 4h), grad_out (rows, m) contiguous -> grad_z (rows, 4h) = dL/dz.
inline Kernel<void(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z)> fourier_log_pmf_backward_kernel{
    "fourier_head_log_pmf_backward"};

// The regulariser (fourier_regularizer).
// x (rows, 2(N+1)) -> corr (rows, 2(N+1)) float64 = [Re c_0..c_N | Im c_0..c_N] (c_0 left unset,
// kept for the backward) and out (0-d) = scale * mean_rows sum_{k>=1} k^2 |c_k|^2.
inline Kernel<void(const Tensor& x, double scale, const Tensor& corr, const Tensor& out)> fourier_regularizer_kernel{
    "fourier_regularizer"};
// x, corr as above, grad_out (0-d) -> grad_x (rows, 2(N+1)).
inline Kernel<void(const Tensor& x, const Tensor& corr, const Tensor& grad_out, double scale, const Tensor& grad_x)>
    fourier_regularizer_backward_kernel{"fourier_regularizer_backward"};

}  // namespace hm

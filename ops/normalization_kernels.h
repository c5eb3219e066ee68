// Kernel slots of layer_norm and rms_norm over the trailing D elements of each of R rows
// (ops/normalization.h; see core/dispatch.h). Inputs arrive contiguous.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// x (R, D) -> out (R, D); mean, rstd (R) are saved for backward. weight/bias (D) may be undefined.
inline Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                   const Tensor& mean, const Tensor& rstd)>
    layer_norm_kernel{"layer_norm"};

// sum = x + r, then layer_norm_kernel's work on sum, row by row: x, r, sum, out (R, D). r is
// x's dtype, or bfloat16 beside a float32 x (a bfloat16 branch on a float32 residual stream).
inline Kernel<void(const Tensor& x, const Tensor& r, const Tensor& weight, const Tensor& bias, double eps,
                   const Tensor& sum, const Tensor& out, const Tensor& mean, const Tensor& rstd)>
    add_layer_norm_kernel{"add_layer_norm"};

// Fills whichever of dx (R, D), dweight (D), dbias (D) are defined.
inline Kernel<void(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean, const Tensor& rstd,
                   const Tensor& dx, const Tensor& dweight, const Tensor& dbias)>
    layer_norm_backward_kernel{"layer_norm_backward"};

// RMS norm: out = x rstd weight with rstd = 1 / sqrt(mean(x^2) + eps) saved (R).
inline Kernel<void(const Tensor& x, const Tensor& weight, double eps, const Tensor& out, const Tensor& rstd)>
    rms_norm_kernel{"rms_norm"};

// sum = x + r, then rms_norm_kernel's work on sum, row by row (r as for add_layer_norm_kernel).
inline Kernel<void(const Tensor& x, const Tensor& r, const Tensor& weight, double eps, const Tensor& sum,
                   const Tensor& out, const Tensor& rstd)>
    add_rms_norm_kernel{"add_rms_norm"};

inline Kernel<void(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& rstd, const Tensor& dx,
                   const Tensor& dweight)>
    rms_norm_backward_kernel{"rms_norm_backward"};

}  // namespace hm

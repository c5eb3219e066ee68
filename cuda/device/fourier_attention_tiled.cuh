// Entry points of fourier_attention's tiled (FlashAttention-2) kernels
// (cuda/fourier_attention_tiled.cu), called by the fourier_attention slots of
// cuda/fourier_attention.cu where the op saved lse (fourier_attention_tiled_covers()). Each returns
// false, having done nothing, where the tiled kernels do not cover the case; the caller then runs
// the reference kernels. Exec::Host runs the
// same block code on the CPU, thread by thread and phase by phase between the barriers (the host
// twin).
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/fourier_attention_kernels.h"

namespace hm::cuda {

// The slot arguments of fourier_attention_kernel with attn undefined (lse saved).
template <Exec E>
bool fourier_tiled_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                           const FourierAttentionArgs& args, const Tensor& out, const Tensor& lse);

// The slot arguments of fourier_attention_backward_kernel with lse (attn undefined) and out.
template <Exec E>
bool fourier_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                            const Tensor& out, const Tensor& lse, const Tensor& grad, const FourierAttentionArgs& args,
                            const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dR);

}  // namespace hm::cuda

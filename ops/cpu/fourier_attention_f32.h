// The float32 CPU kernels of the fused Fourier attention (ops/cpu/fourier_attention_f32.cpp),
// called by the CPU kernel slots of ops/fourier_attention_kernels.h for float32 tensors; the
// arguments are those of the slots.
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/ops/fourier_attention_kernels.h"

namespace hm::detail {

void fourier_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                           const FourierAttentionArgs& args, const Tensor& out, const Tensor& attn, const Tensor& lse);

void fourier_attention_backward_f32(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R,
                                    const Tensor& attn, const Tensor& pad, const Tensor& lse, const Tensor& g,
                                    const FourierAttentionArgs& args, const Tensor& dq, const Tensor& dk,
                                    const Tensor& dv, const Tensor& dR);

}  // namespace hm::detail

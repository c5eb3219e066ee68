// Entry points of the tiled (flash-attention 2) kernels of scaled_dot_product_attention
// (cuda/scaled_dot_product_attention_flash.cu), called by the sdpa slots of
// cuda/scaled_dot_product_attention.cu where cuda/scaled_dot_product_attention_route.h chooses
// them. Each returns false, having done nothing, where the tiled kernels do not cover the case
// (sdpa_flash_covers, or a device with too little shared memory per block); the caller then runs
// the reference kernels.
// Exec::Host runs the same block code on the CPU, thread by thread and phase by phase between
// the barriers, with the same tiles and summation order (the host twin).
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"

namespace hm::cuda {

// The slot arguments of sdpa_kernel, already checked by the caller.
template <Exec E>
bool flash_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                   const SdpaArgs& args, const Tensor& out, const Tensor& lse);

// The slot arguments of sdpa_backward_kernel, already checked by the caller; one_pass (only
// without dbias): dq summed by atomics in the dk/dv pass, else two passes in a fixed order.
template <Exec E>
bool flash_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                    const Tensor& out, const Tensor& lse, const Tensor& grad, const SdpaArgs& args, const Tensor& dq,
                    const Tensor& dk, const Tensor& dv, const Tensor& dbias, bool one_pass);

}  // namespace hm::cuda

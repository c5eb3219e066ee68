// Kernel slot of dropout (ops/dropout.h; see core/dispatch.h).
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out = x * keep / (1 - p) with keep_i = philox::uniform<float>(seed, offset + base, i) >= p (see
// dropout_keep in ops/dropout_functors.h); base is *offset_base, read by the kernel, when
// offset_base is defined (a (1,) int64 tensor on x's device: a draw inside a CUDA graph
// capture, core/philox_draw.h), else 0. Backward is the same kernel applied to the gradient.
inline Kernel<void(const Tensor& x, double p, uint64_t seed, uint64_t offset, const Tensor& offset_base,
                   const Tensor& out)>
    dropout_kernel{"dropout"};

// out = x + r * keep / (1 - p) with dropout's mask, offset_base as there (the product rounded
// before the add, as in dropout then add). x, r, out contiguous of one shape and dtype, or r
// bfloat16 beside a float32 x and out (the product rounded to bfloat16, as dropout(r) would be).
inline Kernel<void(const Tensor& x, const Tensor& r, double p, uint64_t seed, uint64_t offset,
                   const Tensor& offset_base, const Tensor& out)>
    dropout_add_kernel{"dropout_add"};

}  // namespace hm

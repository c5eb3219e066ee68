// Kernel slot of amax/amin/max/min/argmax/argmin (ops/extrema.h; see core/dispatch.h).
// Reducing kernels see their input as a contiguous 3-d view x (outer, r, inner) and reduce the
// middle dim; the op (ops/reduce_common.h) builds that view without copying whenever the
// reduced dims form one block of a dense tensor, and with one permuting copy otherwise. Outputs
// are freshly allocated contiguous tensors with outer * inner elements.
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

enum class ExtremaOp : uint8_t { Max, Min };

// values[o, i] = max/min over k of x[o, k, i] (NaN wins, like PyTorch); indices (int64, or
// undefined when not wanted) receives the first k reaching it. Requires r >= 1.
inline Kernel<void(ExtremaOp op, const Tensor& x, const Tensor& values, const Tensor& indices)> extrema_kernel{
    "reduce_extrema"};

}  // namespace hm

// Kernel slot of var and std (ops/moments.h; see core/dispatch.h).
// Reducing kernels see their input as a contiguous 3-d view x (outer, r, inner) and reduce the
// middle dim; the op (ops/reduce_common.h) builds that view without copying whenever the
// reduced dims form one block of a dense tensor, and with one permuting copy otherwise. Outputs
// are freshly allocated contiguous tensors with outer * inner elements.
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// Two-pass moments over k: mean, and sum of squared deviations / max(r - correction, 0),
// or its square root when take_sqrt (std). mean and out are (outer * inner).
inline Kernel<void(const Tensor& x, int64_t correction, bool take_sqrt, const Tensor& mean, const Tensor& out)>
    moments_kernel{"moments"};

}  // namespace hm

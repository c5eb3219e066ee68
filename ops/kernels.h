// Kernel slots of the op families (see core/dispatch.h). Each family's CPU file binds the
// `cpu` pointer; the CUDA library binds `cuda`. Inputs arrive already broadcast/expanded
// to the output's shape where the family says so; outputs are freshly allocated contiguous.
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/binary_functors.h"

namespace hm {

// out = op(a, b); a and b are views expanded to out's shape (broadcast strides are 0).
inline Kernel<void(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out)> binary_kernel{"binary"};

// out = sum of x over `dims` (sorted, unique); out has x's shape with those dims set to 1.
inline Kernel<void(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out)> sum_kernel{"sum"};

}  // namespace hm

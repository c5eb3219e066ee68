// Shared forward plumbing of the elementwise ops (internal to ops/).
#pragma once
#include <string_view>
#include <utility>

#include "harmonic/core/scalar.h"
#include "harmonic/ops/binary_functors.h"

namespace hm::detail {

// Checks a and b (defined, same device, same dtype), broadcasts them, allocates the
// output (bool for comparisons) and runs the binary kernel. No autograd.
Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name);

// t read as `shape` (0 strides on broadcast dims), no autograd.
Tensor expand_to(const Tensor& t, const Shape& shape);

// A 0-d tensor holding `value` in x's dtype and device (for scalar operands).
Tensor scalar_like(const Tensor& x, double value);

// The dtype `x op s` computes in, for a tensor of dtype x and a number s (PyTorch's rule): a
// number of a higher category (bool < integer < floating) lifts x to int64 or float32, and
// true division lifts integer and bool tensors to float32.
DType scalar_result_dtype(DType x, const Scalar& s, bool true_division = false);

// {x in that dtype, s as a 0-d tensor of that dtype on x's device}.
std::pair<Tensor, Tensor> promote_with_scalar(const Tensor& x, const Scalar& s, std::string_view name,
                                              bool true_division = false);

// A contiguous version of t (undefined stays undefined) that is not taped: for ops that
// record themselves as one node and only need packed memory for their kernels.
Tensor contiguous_nograd(const Tensor& t);

// Requires a floating dtype, naming the op.
void check_floating(const Tensor& x, std::string_view name);

}  // namespace hm::detail

// Shared forward plumbing of the elementwise ops (internal to ops/).
#pragma once
#include <string_view>

#include "ops/kernels.h"

namespace hm::detail {

// Checks a and b (defined, same device, same dtype), broadcasts them, allocates the
// output (bool for comparisons) and runs the binary kernel. No autograd.
Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name);

// A 0-d tensor holding `value` in x's dtype and device (for scalar operands).
Tensor scalar_like(const Tensor& x, double value);

// A contiguous version of t (undefined stays undefined) that is not taped: for ops that
// record themselves as one node and only need packed memory for their kernels.
Tensor contiguous_nograd(const Tensor& t);

// Requires a floating dtype, naming the op.
void check_floating(const Tensor& x, std::string_view name);

}  // namespace hm::detail

// Shared op-side plumbing of the reductions (internal to ops/): output shapes, the
// (outer, r, inner) view the reduce kernels consume, and broadcasting a kept-dim result
// back over the input for backward.
#pragma once
#include <string_view>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::detail {

// x seen as a contiguous (outer, r, inner) tensor, r being the product of the reduced dims.
struct ReduceLayout {
  Tensor x;  // (outer, r, inner)
  int64_t outer = 1, r = 1, inner = 1;
};

// A view of x when the reduced dims form one block of a dense x (in memory order, with
// the kept dims in their original order), else a permuted copy (kept..., reduced...).
// dims are sorted and unique (normalize_dims).
ReduceLayout reduce_layout(const Tensor& x, const std::vector<int64_t>& dims);

Shape keepdim_shape(const Shape& shape, const std::vector<int64_t>& dims);  // reduced dims set to 1
Shape dropped_shape(const Shape& shape, const std::vector<int64_t>& dims);  // reduced dims removed

// A contiguous tensor relabelled with another shape of equal size (no autograd).
Tensor relabel(const Tensor& t, const Shape& shape);
// A keepdim-shaped tensor read as `shape` (stride 0 along the reduced dims, no copy).
Tensor expand_kept(const Tensor& kept, const Shape& shape);
// The gradient of a reduction (keepdim or not) as a contiguous keepdim-shaped tensor.
Tensor grad_kept(const Tensor& g, const Shape& kept);

// Requires float32/float64 (checked by the op so the error names it).
void check_float(const Tensor& x, std::string_view name);
// Requires float32/float64/int64.
void check_numeric(const Tensor& x, std::string_view name);

}  // namespace hm::detail

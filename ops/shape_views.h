// Views that rearrange elements: reshape/view/permute/transpose/expand/squeeze/unsqueeze/
// slice/narrow/select share storage with their input (reshape copies only when it must).
#pragma once
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm {

Tensor reshape(const Tensor& x, Shape shape);   // one -1 allowed; copies if not viewable
Tensor view(const Tensor& x, Shape shape);      // like reshape but throws instead of copying
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor expand(const Tensor& x, const Shape& shape);  // -1 keeps a dim; gradient is sum_to
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor squeeze(const Tensor& x);                 // all size-1 dims
Tensor unsqueeze(const Tensor& x, int64_t dim);
// Elements start, start+step, ... < end along dim (negative indices count from the end,
// out-of-range bounds are clamped like Python slicing). step >= 1.
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);  // removes dim

}  // namespace hm

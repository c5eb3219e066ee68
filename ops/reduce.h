// Reductions over any set of dims (empty list = all dims), with keepdim.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace hm {

using Dims = std::vector<int64_t>;

Tensor sum(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
// max/min over dims; gradient split evenly between tied maxima.
Tensor amax(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
// Values and int64 indices of the max/min along one dim (first index on ties).
struct ValuesIndices {
  Tensor values;
  Tensor indices;
};
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim = false);
// correction = 1 is the unbiased estimator (PyTorch's default), 0 the population one.
Tensor var(const Tensor& x, const Dims& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, const Dims& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim = false);
// p-norm (p = 2 by default; p = inf gives max |x|).
Tensor norm(const Tensor& x, double p = 2.0, const Dims& dims = {}, bool keepdim = false);
// Inclusive cumulative sum along dim.
Tensor cumsum(const Tensor& x, int64_t dim);

// Sums a (broadcast) gradient back to `shape`: the one helper every broadcasting backward uses.
Tensor sum_to(const Tensor& grad, const Shape& shape);

}  // namespace hm

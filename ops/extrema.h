// Maxima and minima over dims (empty list = all dims), with their indices along one dim.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

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

}  // namespace hm

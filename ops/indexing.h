// Gather/scatter family. Index tensors are int64; out-of-range indices throw (naming the
// offending value), they never read or write out of bounds.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// out = x.index_select(dim, index): index is 1-d.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// out = x with src.select(dim, i) added to out.select(dim, index[i]) (duplicates accumulate; on CUDA by atomics,
// core/deterministic.h); index 1-d, src has x's shape but src.size(dim) = index.numel(). Differentiable in x, src.
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// out[i][j][k] = x[i][index[i][j][k]][k] for dim = 1; index has x's ndim.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// out = x with src added at index along dim (duplicates accumulate). Differentiable in x and src.
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// (..., ) int64 -> (..., num_classes) of `dtype` (int64 by default).
Tensor one_hot(const Tensor& index, int64_t num_classes, DType dtype = DType::Int64);

}  // namespace hm

// Kernel slots of the gather/scatter family (see core/dispatch.h). Index tensors are int64
// and may be strided or broadcast (stride 0). Every kernel validates all the indices it will
// use BEFORE touching memory and throws an hm::Error naming `fn`, the bad value and the
// valid range, so an out-of-range index can never read or write out of bounds.
#pragma once
#include <string_view>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out[p] = x[p with coordinate `dim` replaced by index[p]] for every p in out's shape.
// index has out's shape (possibly broadcast); x has out's shape except along dim (it may be
// larger in the other dims too, as gather allows). out is freshly allocated.
inline Kernel<void(std::string_view fn, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out)>
    gather_kernel{"gather"};

// out[p with coordinate `dim` replaced by index[p]] += src[p] for every p in index's shape;
// out contiguous, src at least index's size in every dim. Duplicates accumulate; the loop
// along dim is serial so no two threads ever write the same element.
inline Kernel<void(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src)>
    scatter_add_kernel{"scatter_add"};

// out.select(dim, index[i]) += src.select(dim, i) for i < index.numel(); out (A, N, B) and
// src (A, K, B) contiguous (A, B the dims before/after dim), index 1-d contiguous of size K.
inline Kernel<void(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src)>
    index_add_kernel{"index_add"};

// out (..., C) = 1 at [..., index[...]], 0 elsewhere; index contiguous, out contiguous.
inline Kernel<void(const Tensor& index, const Tensor& out)> one_hot_kernel{"one_hot"};

}  // namespace hm

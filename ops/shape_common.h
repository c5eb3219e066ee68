// Raw aliases (no autograd, no anomaly check) shared by the shape and indexing ops, for
// writing into parts of freshly allocated outputs and for backward rules. Internal to ops/.
#pragma once
#include <optional>

#include "harmonic/core/tensor.h"

namespace hm::detail {

// A view of x's storage with another layout.
inline Tensor alias(const Tensor& x, Shape shape, Strides strides, int64_t offset) {
  return Tensor::view_of(x.storage(), std::move(shape), std::move(strides), offset, x.dtype());
}

// Elements start, start+step, ... (length of them) along dim; bounds already validated.
inline Tensor slice_alias(const Tensor& x, int64_t dim, int64_t start, int64_t length, int64_t step = 1) {
  Shape shape = x.shape();
  Strides strides = x.strides();
  int64_t offset = x.offset() + (length > 0 ? start * strides[dim] : 0);
  shape[dim] = length;
  // A dim of 0 or 1 element never steps, so its stride is left alone: step * stride may not fit
  // in int64 there (a step of 2^62 taking one element); with two or more elements it is at most
  // (size - 1) * stride, which does.
  if (length > 1) strides[dim] *= step;
  return alias(x, std::move(shape), std::move(strides), offset);
}

// x with dim removed at position index.
inline Tensor select_alias(const Tensor& x, int64_t dim, int64_t index) {
  Shape shape = x.shape();
  Strides strides = x.strides();
  int64_t offset = x.offset() + index * strides[dim];
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  return alias(x, std::move(shape), std::move(strides), offset);
}

// Strides that let a tensor of (shape, strides) be read as `target` without copying, or
// nullopt when the memory layout does not allow it (PyTorch's computeStride).
std::optional<Strides> view_strides(const Shape& shape, const Strides& strides, const Shape& target);

}  // namespace hm::detail

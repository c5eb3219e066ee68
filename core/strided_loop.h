// Iteration over N operands that share one shape but have their own element strides
// (0 on broadcast dims). Dims that are contiguous for every operand are merged first, so
// a contiguous or row-broadcast case becomes one or two loops. The caller gets rows:
// fn(offsets, inner_size, inner_strides) with one element offset and stride per operand.
#pragma once
#include <array>
#include <cstdint>

#include "harmonic/core/parallel.h"
#include "harmonic/core/shape.h"

namespace hm {

template <size_t N>
class StridedLoop {
 public:
  StridedLoop(const Shape& shape, const std::array<Strides, N>& strides) {
    // Drop size-1 dims, then merge neighbours that are contiguous for all operands.
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (!shape_.empty()) {
        bool mergeable = true;
        for (size_t k = 0; k < N; ++k)
          if (strides_[k].back() != strides[k][d] * shape[d]) mergeable = false;
        if (mergeable) {
          shape_.back() *= shape[d];
          for (size_t k = 0; k < N; ++k) strides_[k].back() = strides[k][d];
          continue;
        }
      }
      shape_.push_back(shape[d]);
      for (size_t k = 0; k < N; ++k) strides_[k].push_back(strides[k][d]);
    }
    numel_ = numel_of(shape);
    if (shape_.empty()) {  // a scalar or all-ones shape: one row of one element
      shape_.push_back(numel_ == 0 ? 0 : 1);
      for (size_t k = 0; k < N; ++k) strides_[k].push_back(0);
    }
  }

  int64_t inner_size() const { return shape_.back(); }
  int64_t rows() const { return inner_size() == 0 ? 0 : numel_ / inner_size(); }
  int64_t numel() const { return numel_; }

  // Runs fn over rows [begin, end).
  template <class F>
  void run_rows(int64_t begin, int64_t end, F&& fn) const {
    const int64_t nd = static_cast<int64_t>(shape_.size()) - 1;  // outer dims
    std::array<int64_t, N> inner;
    for (size_t k = 0; k < N; ++k) inner[k] = strides_[k].back();
    std::vector<int64_t> idx(nd > 0 ? nd : 0);
    // Decompose `begin` into the outer index.
    int64_t r = begin;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = r % shape_[d];
      r /= shape_[d];
    }
    std::array<int64_t, N> off{};
    for (size_t k = 0; k < N; ++k)
      for (int64_t d = 0; d < nd; ++d) off[k] += idx[d] * strides_[k][d];
    for (int64_t row = begin; row < end; ++row) {
      fn(off, shape_.back(), inner);
      for (int64_t d = nd - 1; d >= 0; --d) {  // odometer increment
        for (size_t k = 0; k < N; ++k) off[k] += strides_[k][d];
        if (++idx[d] < shape_[d]) break;
        for (size_t k = 0; k < N; ++k) off[k] -= strides_[k][d] * shape_[d];
        idx[d] = 0;
      }
    }
  }

  // Runs all rows, in parallel when the tensor is large.
  template <class F>
  void run(F&& fn) const {
    parallel_for(rows(), inner_size(), [&](int64_t b, int64_t e) { run_rows(b, e, fn); });
  }

 private:
  Shape shape_;
  std::array<Strides, N> strides_;
  int64_t numel_ = 0;
};

}  // namespace hm

// CPU kernels of the data-moving shape ops: flip (a gather with reversed indices, no
// negative strides) and the triangular masks of tril/triu.
#include <algorithm>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/shape_copies_kernels.h"

namespace hm {
namespace {

// Copies n elements, reversed or not; both loops vectorise.
template <class T>
inline void copy_row(T* __restrict o, const T* __restrict s, int64_t n, bool reversed) {
  if (reversed) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = s[n - 1 - i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = s[i];
  }
}

void cpu_flip(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  if (x.numel() == 0) return;
  // Flipping two neighbouring dims equals flipping their merge, and unflipped neighbours
  // merge trivially, so the shape collapses to alternating flipped/unflipped groups.
  Shape shape;
  std::vector<char> flipped;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t s = x.shape()[d];
    if (s == 1) continue;
    const char f = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!shape.empty() && flipped.back() == f) {
      shape.back() *= s;
    } else {
      shape.push_back(s);
      flipped.push_back(f);
    }
  }
  if (shape.empty()) shape.push_back(1), flipped.push_back(0);
  const int64_t inner = shape.back();
  const bool reverse_inner = flipped.back();
  const int64_t outer_dims = static_cast<int64_t>(shape.size()) - 1;
  const int64_t rows = x.numel() / inner;
  const Strides strides = contiguous_strides(shape);
  dispatch_all(x.dtype(), "flip", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    parallel_for(rows, inner, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        // Source row: the output row's coordinates, mirrored on flipped dims.
        int64_t rest = r, src = 0;
        for (int64_t d = outer_dims - 1; d >= 0; --d) {
          int64_t c = rest % shape[d];
          rest /= shape[d];
          src += (flipped[d] ? shape[d] - 1 - c : c) * strides[d];
        }
        copy_row(po + r * inner, px + src, inner, reverse_inner);
      }
    });
  });
}

void cpu_triangle(const Tensor& x, int64_t diagonal, bool upper, const Tensor& out) {
  const int64_t R = x.shape()[x.dim() - 2], C = x.shape()[x.dim() - 1];
  if (x.numel() == 0) return;
  const int64_t rows = x.numel() / C;  // batch * R
  dispatch_all(x.dtype(), "triangle", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    parallel_for(rows, C, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % R;
        const T* s = px + r * C;
        T* o = po + r * C;
        // tril keeps columns j <= i + diagonal, triu keeps j >= i + diagonal.
        const int64_t split = std::clamp<int64_t>(upper ? i + diagonal : i + diagonal + 1, 0, C);
        const int64_t keep_begin = upper ? split : 0, keep_end = upper ? C : split;
        for (int64_t j = 0; j < keep_begin; ++j) o[j] = T(0);
        copy_row(o + keep_begin, s + keep_begin, keep_end - keep_begin, false);
        for (int64_t j = keep_end; j < C; ++j) o[j] = T(0);
      }
    });
  });
}

[[maybe_unused]] const bool shape_copies_bound = (flip_kernel.cpu = cpu_flip, triangle_kernel.cpu = cpu_triangle, true);

}  // namespace
}  // namespace hm

#include "harmonic/ops/reduce_common.h"

#include <algorithm>

#include "harmonic/core/shape.h"

namespace hm::detail {

ReduceLayout reduce_layout(const Tensor& x, const std::vector<int64_t>& dims) {
  const int64_t nd = x.dim();
  std::vector<bool> reduced(nd, false);
  for (int64_t d : dims) reduced[d] = true;
  ReduceLayout L;
  int64_t kept_numel = 1;
  for (int64_t d = 0; d < nd; ++d) (reduced[d] ? L.r : kept_numel) *= x.shape()[d];
  if (x.numel() == 0) {
    L.outer = kept_numel;
    L.x = Tensor::empty({L.outer, L.r, 1}, x.dtype(), x.device());
    return L;
  }

  // Memory order of the non-trivial dims (largest stride first); a dense x walks them
  // with strides that are exactly the suffix products of the sizes.
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d)
    if (x.shape()[d] != 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x.strides()[a] > x.strides()[b]; });
  bool dense = true;
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    dense = dense && x.strides()[order[i]] == expected;
    expected *= x.shape()[order[i]];
  }
  // Pattern kept* reduced* kept* with kept dims in increasing original order.
  int phase = 0;  // 0: leading kept, 1: reduced block, 2: trailing kept
  int64_t last_kept = -1, outer = 1, inner = 1;
  bool block = dense;
  for (int64_t d : order) {
    if (reduced[d]) {
      if (phase == 2) block = false;
      phase = 1;
    } else {
      if (d < last_kept) block = false;
      last_kept = d;
      if (phase == 1) phase = 2;
      (phase == 0 ? outer : inner) *= x.shape()[d];
    }
  }
  if (block) {
    L.outer = outer;
    L.inner = inner;
    L.x = Tensor::view_of(x.storage(), {outer, L.r, inner}, contiguous_strides({outer, L.r, inner}), x.offset(),
                          x.dtype());
    return L;
  }
  // One permuting copy into (kept..., reduced...).
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  Shape shape;
  Strides strides;
  for (int64_t d : perm) shape.push_back(x.shape()[d]), strides.push_back(x.strides()[d]);
  Tensor permuted = Tensor::view_of(x.storage(), shape, strides, x.offset(), x.dtype());
  L.outer = kept_numel;
  L.x = Tensor::empty({L.outer, L.r, 1}, x.dtype(), x.device());
  copy_kernel(x.device(), permuted, Tensor::view_of(L.x.storage(), shape, contiguous_strides(shape), 0, x.dtype()));
  return L;
}

Shape keepdim_shape(const Shape& shape, const std::vector<int64_t>& dims) {
  Shape out = shape;
  for (int64_t d : dims) out[d] = 1;
  return out;
}

Shape dropped_shape(const Shape& shape, const std::vector<int64_t>& dims) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) out.push_back(shape[d]);
  return out;
}

Tensor relabel(const Tensor& t, const Shape& shape) {
  return Tensor::view_of(t.storage(), shape, contiguous_strides(shape), t.offset(), t.dtype());
}

Tensor expand_kept(const Tensor& kept, const Shape& shape) {
  return Tensor::view_of(kept.storage(), shape, broadcast_strides(kept.shape(), kept.strides(), shape), kept.offset(),
                         kept.dtype());
}

Tensor grad_kept(const Tensor& g, const Shape& kept) { return relabel(g.contiguous(), kept); }

void check_float(const Tensor& x, std::string_view name) {
  check(x.defined(), name, "undefined tensor");
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, name,
           "expected a float32 or float64 tensor, got {}", x.desc());
}

void check_numeric(const Tensor& x, std::string_view name) {
  check(x.defined(), name, "undefined tensor");
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::Int64, name,
           "expected a float32, float64 or int64 tensor, got {}", x.desc());
}

}  // namespace hm::detail

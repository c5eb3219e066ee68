// CPU sum kernel. Two layouts cover almost every call without copies: reducing trailing
// dims of a contiguous tensor (row sums) and reducing leading dims (column sums, the
// bias-gradient case). Anything else is permuted into the first layout with one copy.
// bfloat16 is summed in float32 (a converted copy: the CPU's bfloat16 is for checking, not speed).
#include <numeric>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/sum_kernels.h"

namespace hm {
namespace {

template <class T>
void row_sums(const T* x, T* out, int64_t rows, int64_t n) {  // x (rows, n) -> out (rows)
  parallel_for(rows, n, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* p = x + r * n;
      T acc = 0;
#pragma omp simd reduction(+ : acc)
      for (int64_t i = 0; i < n; ++i) acc += p[i];
      out[r] = acc;
    }
  });
}

template <class T>
void column_sums(const T* x, T* out, int64_t rows, int64_t n) {  // x (rows, n) -> out (n)
  parallel_for((n + 255) / 256, rows * 256, [&](int64_t b, int64_t e) {
    int64_t j0 = b * 256, j1 = std::min(n, e * 256);
    for (int64_t j = j0; j < j1; ++j) out[j] = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const T* p = x + r * n;
#pragma omp simd
      for (int64_t j = j0; j < j1; ++j) out[j] += p[j];
    }
  });
}

void cpu_sum(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  if (x.dtype() == DType::BFloat16) {  // summed in float32 and rounded once
    Tensor x32 = Tensor::empty(x.shape(), DType::Float32, x.device());
    Tensor sums = Tensor::empty(out.shape(), DType::Float32, out.device());
    copy_kernel.cpu(x, x32);
    cpu_sum(x32, dims, sums);
    copy_kernel.cpu(sums, out);
    return;
  }
  const int64_t nd = x.dim();
  std::vector<bool> reduced(nd, false);
  for (int64_t d : dims) reduced[d] = true;
  int64_t m = out.numel();
  int64_t r = m == 0 ? 0 : x.numel() / std::max<int64_t>(m, 1);
  // Trailing dims reduced?  leading dims reduced?
  int64_t first_reduced = nd, last_kept = -1;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[d] && first_reduced == nd) first_reduced = d;
    if (!reduced[d]) last_kept = d;
  }
  bool trailing = last_kept < first_reduced;
  bool leading = true;
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d] && d > 0 && !reduced[d - 1]) leading = false;

  dispatch_numeric(x.dtype(), "sum", [&]<class T>() {
    T* po = out.data<T>();
    if (x.numel() == 0) {
      for (int64_t i = 0; i < m; ++i) po[i] = 0;
      return;
    }
    if (x.is_contiguous() && trailing) return row_sums(x.data<T>(), po, m, r);
    if (x.is_contiguous() && leading) return column_sums(x.data<T>(), po, r, m);
    // General case: permute to (kept..., reduced...) and copy once.
    std::vector<int64_t> order;
    for (int64_t d = 0; d < nd; ++d)
      if (!reduced[d]) order.push_back(d);
    for (int64_t d : dims) order.push_back(d);
    Shape shape;
    Strides strides;
    for (int64_t d : order) shape.push_back(x.shape()[d]), strides.push_back(x.strides()[d]);
    Tensor permuted = Tensor::view_of(x.storage(), shape, strides, x.offset(), x.dtype());
    Tensor packed = Tensor::empty(shape, x.dtype(), x.device());
    copy_kernel.cpu(permuted, packed);
    row_sums(packed.data<T>(), po, m, r);
  });
}

[[maybe_unused]] const bool sum_bound = (sum_kernel.cpu = cpu_sum, true);

}  // namespace
}  // namespace hm

// CPU draw_categorical: the rows in parallel, each by DrawCategoricalRow (ops/draw_categorical_functors.h),
// the CUDA kernel's row code.
#include "harmonic/core/parallel.h"
#include "harmonic/ops/draw_categorical_functors.h"
#include "harmonic/ops/draw_categorical_kernels.h"

namespace hm {
namespace {

void cpu_draw_categorical(const Tensor& weights, const Tensor& u, int64_t top_k, const Tensor& index,
                          const Tensor& pmf) {
  const int64_t n = weights.size(0), m = weights.size(1);
  int64_t* pi = index.data<int64_t>();
  dispatch_float(weights.dtype(), "draw_categorical", [&]<class T>() {
    const DrawCategoricalRow<T> row{weights.data<T>(), u.data<double>(), pi, pmf.defined() ? pmf.data<double>() : nullptr,
                                    m, top_k};
    parallel_for(n, std::max<int64_t>(1, (1 << 14) / m), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(r);
    });
  });
  for (int64_t r = 0; r < n; ++r)
    check(pi[r] >= 0, "draw_categorical",
          "row {} of the weights {} has a negative or non-finite weight, or none positive", r, weights.desc());
}

[[maybe_unused]] const bool bound = (draw_categorical_kernel.cpu = cpu_draw_categorical, true);

}  // namespace
}  // namespace hm

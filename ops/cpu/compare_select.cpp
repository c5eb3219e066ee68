// CPU kernel of where (also serving masked_fill): strided rows from StridedLoop, with
// vectorised contiguous fast paths. Comparisons run through the binary kernel (binary.cpp).
#include "harmonic/core/strided_loop.h"
#include "harmonic/ops/compare_select_kernels.h"

namespace hm {
namespace {

void cpu_where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const bool* pc = cond.data<bool>();
  StridedLoop<4> loop(out.shape(), {out.strides(), cond.strides(), a.strides(), b.strides()});
  dispatch_storage(out.dtype(), "where", [&]<class T>() {
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* po = out.data<T>();
    loop.run([&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
      T* o = po + off[0];
      const bool* c = pc + off[1];
      const T* x = pa + off[2];
      const T* y = pb + off[3];
      if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 0 && st[3] == 1) {  // masked_fill, gradient masking
        const T xv = *x;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? xv : y[i];
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 0) {
        const T yv = *y;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : yv;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = c[i * st[1]] ? x[i * st[2]] : y[i * st[3]];
      }
    });
  });
}

[[maybe_unused]] const bool compare_select_bound = (where_kernel.cpu = cpu_where, true);

}  // namespace
}  // namespace hm

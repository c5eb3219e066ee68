// CPU kernel of the binary elementwise family: one loop template, specialised for the
// contiguous and scalar-broadcast rows that dominate real workloads so they vectorise.
#include <type_traits>

#include "core/strided_loop.h"
#include "ops/kernels.h"

namespace hm {
namespace {

template <class T, class Out, class F>
void binary_rows(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const T* pa = static_cast<const T*>(a.raw_data());
  const T* pb = static_cast<const T*>(b.raw_data());
  Out* po = static_cast<Out*>(out.raw_data());
  StridedLoop<3> loop(out.shape(), {out.strides(), a.strides(), b.strides()});
  loop.run([&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
    Out* o = po + off[0];
    const T* x = pa + off[1];
    const T* y = pb + off[2];
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T yv = *y;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T xv = *x;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(x[i * st[1]], y[i * st[2]]);
    }
  });
}

void cpu_binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  dispatch_all(a.dtype(), "binary", [&]<class T>() {
    with_binary_functor(op, [&](auto f) {
      // Decided at compile time, so no arithmetic functor is instantiated for bool elements.
      constexpr bool comparison = std::is_same_v<std::invoke_result_t<decltype(f), float, float>, bool>;
      if constexpr (comparison) binary_rows<T, bool>(a, b, out, f);
      else if constexpr (std::is_same_v<T, bool>) throw_error("binary", "arithmetic on bool tensors");
      else binary_rows<T, T>(a, b, out, f);
    });
  });
}

[[maybe_unused]] const bool bound = (binary_kernel.cpu = cpu_binary, true);

}  // namespace
}  // namespace hm

// CPU kernels for strided copy-with-conversion and fill, the two writes core/ needs itself.
#include <type_traits>

#include "harmonic/core/strided_loop.h"
#include "harmonic/core/tensor.h"

namespace hm {
namespace {

template <class To, class From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (std::is_same_v<From, BFloat16>) return convert<To>(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, BFloat16>) return BFloat16(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, bool>) return x != From(0);
  else return static_cast<To>(x);
}

// Like dispatch_all, plus bfloat16 (conversions are the one CPU kernel bfloat16 has).
template <class F>
decltype(auto) dispatch_storage(DType t, F&& f) {
  if (t == DType::BFloat16) return f.template operator()<BFloat16>();
  return dispatch_all(t, "copy_", std::forward<F>(f));
}

void cpu_copy(const Tensor& src, const Tensor& dst) {
  HM_CHECK(src.shape() == dst.shape(), "copy_", "shape mismatch {} vs {}", str(src.shape()), str(dst.shape()));
  StridedLoop<2> loop(dst.shape(), {dst.strides(), src.strides()});
  dispatch_storage(dst.dtype(), [&]<class D>() {
    dispatch_storage(src.dtype(), [&]<class S>() {
      D* d = static_cast<D*>(dst.raw_data());
      const S* s = static_cast<const S*>(src.raw_data());
      loop.run([&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
        D* dp = d + off[0];
        const S* sp = s + off[1];
        if (st[0] == 1 && st[1] == 1) {
          for (int64_t i = 0; i < n; ++i) dp[i] = convert<D>(sp[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) dp[i * st[0]] = convert<D>(sp[i * st[1]]);
        }
      });
    });
  });
}

void cpu_fill(const Tensor& dst, double value) {
  StridedLoop<1> loop(dst.shape(), {dst.strides()});
  dispatch_storage(dst.dtype(), [&]<class D>() {
    D v = convert<D>(value);
    D* d = static_cast<D*>(dst.raw_data());
    loop.run([&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
      for (int64_t i = 0; i < n; ++i) d[off[0] + i * st[0]] = v;
    });
  });
}

[[maybe_unused]] const bool copy_bound = (copy_kernel.cpu = cpu_copy, fill_kernel.cpu = cpu_fill, true);

}  // namespace
}  // namespace hm

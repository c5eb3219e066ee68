// CPU kernels for strided copy-with-conversion and fill, the two writes core/ needs itself.
#include <type_traits>

#include "harmonic/core/strided_loop.h"
#include "harmonic/core/tensor.h"

namespace hm {
namespace {

void cpu_copy(const Tensor& src, const Tensor& dst) {
  HM_CHECK(src.shape() == dst.shape(), "copy_", "shape mismatch {} vs {}", str(src.shape()), str(dst.shape()));
  StridedLoop<2> loop(dst.shape(), {dst.strides(), src.strides()});
  dispatch_storage(dst.dtype(), "copy_", [&]<class D>() {
    dispatch_storage(src.dtype(), "copy_", [&]<class S>() {
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
  dispatch_storage(dst.dtype(), "fill_", [&]<class D>() {
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

// CPU mean squared error: forward as a fixed-block sum (the result does not depend on the
// thread count), backward as one elementwise pass.
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/mse_loss_kernels.h"

namespace hm {
namespace {

void cpu_mse_loss(const Tensor& input, const Tensor& target, Reduction reduction, const Tensor& out) {
  dispatch_float(input.dtype(), "mse_loss", [&]<class T>() {
    const T* x = input.data<T>();
    const T* t = target.data<T>();
    const int64_t n = input.numel();
    if (reduction == Reduction::None) {
      T* o = out.data<T>();
      parallel_for(n, 1, [&](int64_t b, int64_t e) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) o[i] = (x[i] - t[i]) * (x[i] - t[i]);
      });
      return;
    }
    constexpr int64_t kBlock = 4096;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<double> partial(blocks);
    parallel_for(blocks, kBlock, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        T acc = 0;
        const int64_t i1 = std::min(n, (blk + 1) * kBlock);
#pragma omp simd reduction(+ : acc)
        for (int64_t i = blk * kBlock; i < i1; ++i) acc += (x[i] - t[i]) * (x[i] - t[i]);
        partial[blk] = acc;
      }
    });
    double total = 0;
    for (double v : partial) total += v;
    if (reduction == Reduction::Mean) total /= static_cast<double>(n);  // 0/0 = NaN when empty, like PyTorch
    *out.data<T>() = static_cast<T>(total);
  });
}

void cpu_mse_loss_backward(const Tensor& input, const Tensor& target, const Tensor& g, double scale,
                           const Tensor& dinput) {
  dispatch_float(input.dtype(), "mse_loss_backward", [&]<class T>() {
    const T* x = input.data<T>();
    const T* t = target.data<T>();
    const T* pg = g.data<T>();
    T* d = dinput.data<T>();
    const bool scalar_grad = g.numel() == 1;  // a 0-d gradient of Mean/Sum (or a 1-element None)
    const T s = static_cast<T>(2 * scale);
    parallel_for(input.numel(), 1, [&](int64_t b, int64_t e) {
      if (scalar_grad) {
        const T gs = pg[0] * s;
#pragma omp simd
        for (int64_t i = b; i < e; ++i) d[i] = (x[i] - t[i]) * gs;
      } else {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) d[i] = (x[i] - t[i]) * pg[i] * s;
      }
    });
  });
}

[[maybe_unused]] const bool mse_loss_bound =
    (mse_loss_kernel.cpu = cpu_mse_loss, mse_loss_backward_kernel.cpu = cpu_mse_loss_backward, true);

}  // namespace
}  // namespace hm

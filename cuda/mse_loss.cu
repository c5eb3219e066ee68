// CUDA mse loss, forward and backward, with the formulas of the CPU kernel
// (ops/cpu/mse_loss.cpp); the total is a deterministic double sum (reduce_total).
#include <limits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/ops/mse_loss_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct SquaredError {
  const T *x, *t;
  HM_HD T at(int64_t i) const { return (x[i] - t[i]) * (x[i] - t[i]); }
  HM_HD double operator()(int64_t i) const { return static_cast<double>(at(i)); }
};
template <class T>
struct SquaredErrorOut {
  SquaredError<T> e;
  T* out;
  HM_HD void operator()(int64_t i) const { out[i] = e.at(i); }
};

template <Exec E>
void mse_loss_on(const Tensor& input, const Tensor& target, Reduction reduction, const Tensor& out) {
  const int device = kernel_device(E, "mse_loss", {&input, &target, &out});
  dispatch_float(input.dtype(), "mse_loss", [&]<class T>() {
    const SquaredError<T> e{static_cast<const T*>(input.raw_data()), static_cast<const T*>(target.raw_data())};
    T* po = static_cast<T*>(out.raw_data());
    const int64_t n = input.numel();
    if (reduction == Reduction::None)
      for_each_index(E, device, n, SquaredErrorOut<T>{e, po});
    else  // Mean of nothing is 0/0 = NaN, like PyTorch
      reduce_total(E, device, n, e, reduction == Reduction::Mean ? static_cast<double>(n) : 1.0, po);
  });
}

template <class T>
struct MseBackward {  // d = (x - t) g 2 scale, g 0-d (scalar_grad) or elementwise
  const T *x, *t, *g;
  T* d;
  bool scalar_grad;
  T s;
  HM_HD void operator()(int64_t i) const { d[i] = scalar_grad ? (x[i] - t[i]) * (g[0] * s) : (x[i] - t[i]) * g[i] * s; }
};

template <Exec E>
void mse_loss_backward_on(const Tensor& input, const Tensor& target, const Tensor& g, double scale,
                          const Tensor& dinput) {
  const int device = kernel_device(E, "mse_loss_backward", {&input, &target, &g, &dinput});
  dispatch_float(input.dtype(), "mse_loss_backward", [&]<class T>() {
    for_each_index(E, device, input.numel(),
                   MseBackward<T>{static_cast<const T*>(input.raw_data()), static_cast<const T*>(target.raw_data()),
                                  static_cast<const T*>(g.raw_data()), static_cast<T*>(dinput.raw_data()),
                                  g.numel() == 1, static_cast<T>(2 * scale)});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(mse_loss_kernel, mse_loss_on<Exec::Device>, mse_loss_on<Exec::Host>) &&
    bind_cuda(mse_loss_backward_kernel, mse_loss_backward_on<Exec::Device>, mse_loss_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

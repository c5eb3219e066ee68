// CUDA dropout and dropout_add: keep_i = dropout_keep(seed, offset, i) of ops/dropout_functors.h, the CPU's mask
// (ops/cpu/dropout.cpp) bit for bit.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/ops/dropout_functors.h"
#include "harmonic/ops/dropout_kernels.h"

namespace hm::cuda {
namespace {

// bfloat16 elements are computed in float32 and rounded once on the store, as on the CPU.
template <class T>
struct Dropout {
  using C = compute_t<T>;
  const T* x;
  T* out;
  uint64_t seed, offset;
  const int64_t* base;  // null, or the device value added to offset (a captured draw)
  float p;
  C scale;
  HM_HD void operator()(int64_t i) const {
    const uint64_t o = base ? offset + static_cast<uint64_t>(*base) : offset;
    out[i] = convert<T>(dropout_keep(seed, o, static_cast<uint64_t>(i), p) ? convert<C>(x[i]) * scale : C(0));
  }
};

// x + dropout(r). The product is rounded on its own (__fmul_rn / __dmul_rn are never fused
// into an FMA), so the sum is bit for bit the dropout kernel's output added to x.
HM_HD float mul_rounded(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
HM_HD double mul_rounded(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// R: r's type, T's or bfloat16 beside a float32 x (a bfloat16 branch on a float32 residual).
template <class T, class R = T>
struct DropoutAdd {
  using C = compute_t<T>;
  const T* x;
  const R* r;
  T* out;
  uint64_t seed, offset;
  const int64_t* base;  // as Dropout's
  float p;
  C scale;
  HM_HD void operator()(int64_t i) const {
    const uint64_t o = base ? offset + static_cast<uint64_t>(*base) : offset;
    // The dropped r is rounded to R (a no-op but for bfloat16) as dropout's output would be.
    const C d = dropout_keep(seed, o, static_cast<uint64_t>(i), p)
                    ? convert<C>(convert<R>(mul_rounded(convert<C>(r[i]), scale)))
                    : C(0);
    out[i] = convert<T>(convert<C>(x[i]) + d);
  }
};

template <Exec E>
void dropout_on(const Tensor& x, double p, uint64_t seed, uint64_t offset, const Tensor& offset_base,
                const Tensor& out) {
  const int device = offset_base.defined() ? kernel_device(E, "dropout", {&x, &offset_base, &out})
                                           : kernel_device(E, "dropout", {&x, &out});
  const int64_t* base = offset_base.defined() ? static_cast<const int64_t*>(offset_base.raw_data()) : nullptr;
  dispatch_kernel_floating(x.dtype(), "dropout", [&]<class T>() {
    using C = compute_t<T>;
    const C scale = p < 1.0 ? static_cast<C>(1.0 / (1.0 - p)) : C(0);
    for_each_index(E, device, x.numel(),
                   Dropout<T>{static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), seed, offset,
                              base, static_cast<float>(p), scale});
  });
}

template <Exec E>
void dropout_add_on(const Tensor& x, const Tensor& r, double p, uint64_t seed, uint64_t offset,
                    const Tensor& offset_base, const Tensor& out) {
  const int device = offset_base.defined() ? kernel_device(E, "dropout_add", {&x, &r, &offset_base, &out})
                                           : kernel_device(E, "dropout_add", {&x, &r, &out});
  const int64_t* base = offset_base.defined() ? static_cast<const int64_t*>(offset_base.raw_data()) : nullptr;
  auto launch = [&]<class T, class R>() {
    using C = compute_t<T>;
    const C scale = p < 1.0 ? static_cast<C>(1.0 / (1.0 - p)) : C(0);
    for_each_index(E, device, x.numel(),
                   DropoutAdd<T, R>{static_cast<const T*>(x.raw_data()), static_cast<const R*>(r.raw_data()),
                                    static_cast<T*>(out.raw_data()), seed, offset, base, static_cast<float>(p), scale});
  };
  if (x.dtype() == DType::Float32 && r.dtype() == DType::BFloat16) return launch.template operator()<float, Bf16>();
  dispatch_kernel_floating(x.dtype(), "dropout_add", [&]<class T>() { launch.template operator()<T, T>(); });
}

[[maybe_unused]] const bool bound =
    bind_cuda(dropout_kernel, dropout_on<Exec::Device>, dropout_on<Exec::Host>) &&
    bind_cuda(dropout_add_kernel, dropout_add_on<Exec::Device>, dropout_add_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

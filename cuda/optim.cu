// CUDA kernels of the fused optimizer updates: one elementwise pass per parameter running
// the HM_HD update functions of optim/optim_functors.h, the same code as the CPU loop
// (optim/cpu_kernels.cpp). The run-time flags become template arguments, as on the CPU.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/optim/optim_kernels.h"

namespace hm::cuda {
namespace {

using optim::AdamCoeffs;
using optim::AdamStep;
using optim::SgdCoeffs;
using optim::SgdStep;

template <class T, bool Momentum, bool Nesterov, bool First>
struct SgdK {
  T *p, *buf;
  const T* g;
  SgdCoeffs<T> c;
  HM_HD void operator()(int64_t i) const {
    if constexpr (Momentum) {
      optim::sgd_update<T, true, Nesterov, First>(p[i], g[i], buf[i], c);
    } else {
      T unused = 0;
      optim::sgd_update<T, false, false, false>(p[i], g[i], unused, c);
    }
  }
};

template <Exec E>
void sgd_on(const Tensor& param, const Tensor& grad, const Tensor& buffer, const SgdStep& s) {
  const int device = kernel_device(E, "sgd", {&param, &grad});
  dispatch_float(param.dtype(), "sgd", [&]<class T>() {
    T* p = static_cast<T*>(param.raw_data());
    const T* g = static_cast<const T*>(grad.raw_data());
    T* b = buffer.defined() ? static_cast<T*>(buffer.raw_data()) : nullptr;
    const SgdCoeffs<T> c(s);
    const int64_t n = param.numel();
    if (!b)
      for_each_index(E, device, n, SgdK<T, false, false, false>{p, b, g, c});
    else if (s.first)
      s.nesterov ? for_each_index(E, device, n, SgdK<T, true, true, true>{p, b, g, c})
                 : for_each_index(E, device, n, SgdK<T, true, false, true>{p, b, g, c});
    else
      s.nesterov ? for_each_index(E, device, n, SgdK<T, true, true, false>{p, b, g, c})
                 : for_each_index(E, device, n, SgdK<T, true, false, false>{p, b, g, c});
  });
}

template <class T, bool Amsgrad>
struct AdamK {
  T *p, *m, *v, *vmax;
  const T* g;
  AdamCoeffs<T> c;
  HM_HD void operator()(int64_t i) const {
    if constexpr (Amsgrad) {
      optim::adam_update<T, true>(p[i], g[i], m[i], v[i], vmax[i], c);
    } else {
      T unused = 0;
      optim::adam_update<T, false>(p[i], g[i], m[i], v[i], unused, c);
    }
  }
};

template <Exec E>
void adam_on(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
             const Tensor& max_exp_avg_sq, const AdamStep& s) {
  const int device = kernel_device(E, "adam", {&param, &grad, &exp_avg, &exp_avg_sq});
  dispatch_float(param.dtype(), "adam", [&]<class T>() {
    T* p = static_cast<T*>(param.raw_data());
    T* m = static_cast<T*>(exp_avg.raw_data());
    T* v = static_cast<T*>(exp_avg_sq.raw_data());
    T* vmax = s.amsgrad ? static_cast<T*>(max_exp_avg_sq.raw_data()) : nullptr;
    const T* g = static_cast<const T*>(grad.raw_data());
    const AdamCoeffs<T> c(s);
    if (s.amsgrad)
      for_each_index(E, device, param.numel(), AdamK<T, true>{p, m, v, vmax, g, c});
    else
      for_each_index(E, device, param.numel(), AdamK<T, false>{p, m, v, vmax, g, c});
  });
}

[[maybe_unused]] const bool bound = bind_cuda(optim::sgd_kernel, sgd_on<Exec::Device>, sgd_on<Exec::Host>) &&
                                    bind_cuda(optim::adam_kernel, adam_on<Exec::Device>, adam_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

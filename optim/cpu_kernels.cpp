// CPU kernels of the fused optimizer updates: one parallel pass over contiguous memory, the
// per-element functor of optim/optim_functors.h inlined into a loop that vectorises. The
// runtime flags (momentum, Nesterov, first step, amsgrad) become template arguments so no
// branch remains inside the loop.
#include "harmonic/core/parallel.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {
namespace {

// Work per element in "element operations" for parallel_for's grain (Adam does a sqrt and a
// division and touches five arrays).
constexpr int64_t kSgdCost = 4;
constexpr int64_t kAdamCost = 16;

template <class T, bool Momentum, bool Nesterov, bool First>
void sgd_loop(T* p, const T* g, T* buf, int64_t n, const SgdCoeffs<T>& c) {
  parallel_for(n, kSgdCost, [&](int64_t begin, int64_t end) {
    if constexpr (Momentum) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) sgd_update<T, true, Nesterov, First>(p[i], g[i], buf[i], c);
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T unused = 0;
        sgd_update<T, false, false, false>(p[i], g[i], unused, c);
      }
    }
  });
}

void cpu_sgd(const Tensor& param, const Tensor& grad, const Tensor& buffer, const SgdStep& s) {
  dispatch_float(param.dtype(), "sgd", [&]<class T>() {
    T* p = param.data<T>();
    const T* g = grad.data<T>();
    T* b = buffer.defined() ? buffer.data<T>() : nullptr;
    const int64_t n = param.numel();
    const SgdCoeffs<T> c(s);
    if (!b)
      sgd_loop<T, false, false, false>(p, g, b, n, c);
    else if (s.first)
      s.nesterov ? sgd_loop<T, true, true, true>(p, g, b, n, c) : sgd_loop<T, true, false, true>(p, g, b, n, c);
    else
      s.nesterov ? sgd_loop<T, true, true, false>(p, g, b, n, c) : sgd_loop<T, true, false, false>(p, g, b, n, c);
  });
}

template <class T, bool Amsgrad>
void adam_loop(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, const AdamCoeffs<T>& c) {
  parallel_for(n, kAdamCost, [&](int64_t begin, int64_t end) {
    if constexpr (Amsgrad) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) adam_update<T, true>(p[i], g[i], m[i], v[i], vmax[i], c);
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T unused = 0;
        adam_update<T, false>(p[i], g[i], m[i], v[i], unused, c);
      }
    }
  });
}

void cpu_adam(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
              const Tensor& max_exp_avg_sq, const AdamStep& s) {
  dispatch_float(param.dtype(), "adam", [&]<class T>() {
    const AdamCoeffs<T> c(s);
    T* vmax = s.amsgrad ? max_exp_avg_sq.data<T>() : nullptr;
    if (s.amsgrad)
      adam_loop<T, true>(param.data<T>(), grad.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(), vmax, param.numel(),
                         c);
    else
      adam_loop<T, false>(param.data<T>(), grad.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(), vmax, param.numel(),
                          c);
  });
}

[[maybe_unused]] const bool cpu_kernels_bound = (sgd_kernel.cpu = cpu_sgd, adam_kernel.cpu = cpu_adam, true);

}  // namespace
}  // namespace hm::optim

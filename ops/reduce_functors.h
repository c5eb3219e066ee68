// Scalar functors of the reduction family, shared by the CPU loops and the CUDA kernels
// (HM_HD) so both backends agree on ties, NaN and the edge cases of the gradients.
#pragma once
#include <cmath>
#include <type_traits>

#include "harmonic/core/host_device.h"

namespace hm::fn {

// True when v should replace best in a running max (IsMax) or min: strictly better, or the
// first NaN (NaN propagates like torch.amax). Ties keep the earlier element.
// Branch-free (bitwise & and |) so CPU loops calling it vectorise.
template <bool IsMax, class T>
HM_HD bool extremum_beats(T v, T best) {
  const bool better = IsMax ? v > best : v < best;
  if constexpr (std::is_floating_point_v<T>) return better | ((v != v) & (best == best));
  return better;
}

template <class T>
HM_HD T sign_of(T x) {
  return static_cast<T>((x > T(0)) - (x < T(0)));
}

// -- elementwise gradients: (x, r = reduction result, g = its gradient) -> dL/dx -----------------
// M is the backend's math policy (CpuMath in ops/cpu/vec_math.h, StdMath in ops/unary_functors.h).
template <class M>
struct GradLogSumExp {
  template <class T>
  HM_HD T operator()(T x, T r, T g) const {
    return g * M::exp(x - r);
  }
};
// 2-norm: g x / r, and 0 (not NaN) when the norm is 0.
struct GradNorm2 {
  template <class T>
  HM_HD T operator()(T x, T r, T g) const {
    return r == T(0) ? T(0) : g * x / r;
  }
};
struct GradNorm1 {
  template <class T>
  HM_HD T operator()(T x, T r, T g) const {
    return g * sign_of(x);
  }
};
// General p: g sign(x) (|x| / r)^(p-1) = g sign(x) exp((p-1) log(|x| / r)); 0 at x = 0 and
// where the norm is 0.
template <class M>
struct GradNormP {
  double p;
  template <class T>
  HM_HD T operator()(T x, T r, T g) const {
    const T v = g * sign_of(x) * M::exp(static_cast<T>(p - 1) * M::log(std::fabs(x) / r));
    return x == T(0) || r == T(0) ? T(0) : v;
  }
};
struct EqMask {
  template <class T>
  HM_HD T operator()(T x, T r, T) const {
    return x == r ? T(1) : T(0);
  }
};
struct AbsEqMask {
  template <class T>
  HM_HD T operator()(T x, T r, T) const {
    return std::fabs(x) == r ? T(1) : T(0);
  }
};
struct AbsEqSign {
  template <class T>
  HM_HD T operator()(T x, T r, T) const {
    return std::fabs(x) == r ? sign_of(x) : T(0);
  }
};

}  // namespace hm::fn

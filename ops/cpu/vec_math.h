// float32 exp, log, log1p, tanh, erf, the normal CDF and sigmoid as branch-free polynomial code: no calls,
// no data-dependent branches, only selects, so GCC vectorises a `#pragma omp simd` loop
// that calls them (libm's scalar expf would keep such a loop scalar). Cephes-style range
// reduction; the polynomial coefficients are our own minimax fits (Lawson iteration).
// Accuracy, checked against libm in tests/test_elementwise.cpp: exp/log ~1 ulp, tanh/erf
// a few ulp. Inf, NaN, zeros and subnormals behave like libm. float64 uses std::.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#define HM_VEC_INLINE [[gnu::always_inline]] inline

namespace hm::vm {

namespace detail {
HM_VEC_INLINE float from_bits(int32_t b) { return std::bit_cast<float>(b); }
HM_VEC_INLINE int32_t to_bits(float f) { return std::bit_cast<int32_t>(f); }
}  // namespace detail

// exp(x) = 2^n e^r with n = round(x / ln 2), |r| <= ln2 / 2.
HM_VEC_INLINE float exp(float x) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer in the low bits
  // Clamp so 2^n stays representable as two factors (NaN passes: std::min(a, b) is b < a ? b : a).
  x = std::min(x, 88.8f);     // exp(88.73) already overflows to inf
  x = std::max(x, -104.0f);  // exp(-104) is below half the smallest subnormal: 0
  const float t = x * 1.44269504f + kMagic;
  const float n = t - kMagic;
  const int32_t ni = detail::to_bits(t) - detail::to_bits(kMagic);
  float r = x - n * 0.693145752f;  // ln 2 split in a head exact in n * head, and a tail
  r = r - n * 1.42860677e-06f;
  float p = 1.381461276e-03f;
  p = p * r + 8.368710056e-03f;
  p = p * r + 4.166838899e-02f;
  p = p * r + 1.666652113e-01f;
  p = p * r + 4.999999404e-01f;
  p = (p * r) * r + r + 1.0f;
  // 2^n as two normal factors so results down to the subnormal range round only once.
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  return p * detail::from_bits((n1 + 127) << 23) * detail::from_bits((n2 + 127) << 23);
}

// log(x) = e ln2 + log(1 + f) with x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2)).
HM_VEC_INLINE float log(float x) {
  const bool subnormal = x < 1.17549435e-38f;  // scale subnormals into the normal range first
  const float xs = subnormal ? x * 8388608.0f : x;  // 2^23
  const int32_t bits = detail::to_bits(xs);
  int32_t e = ((bits >> 23) & 0xff) - 127 - (subnormal ? 23 : 0);
  float m = detail::from_bits((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
  const bool high = m > 1.41421356f;
  m = high ? m * 0.5f : m;
  e = high ? e + 1 : e;
  const float f = m - 1.0f;
  const float fe = static_cast<float>(e);
  float q = -7.634497434e-02f;
  q = q * f + 1.276157796e-01f;
  q = q * f - 1.316018254e-01f;
  q = q * f + 1.420175731e-01f;
  q = q * f - 1.662335694e-01f;
  q = q * f + 2.000122666e-01f;
  q = q * f - 2.500081956e-01f;
  q = q * f + 3.333333135e-01f;
  const float f2 = f * f;
  float r = f2 * f * q + fe * -2.12194440e-04f;  // ln 2 = 0.693359375 - 2.12194440e-4
  r = r - 0.5f * f2 + f;
  r = r + fe * 0.693359375f;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  r = x == 0.0f ? -kInf : r;
  r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
  r = x == kInf ? kInf : r;
  return x != x ? x : r;
}

// log(1 + x) via Goldberg's trick: log(u) * x / (u - 1) with u = fl(1 + x) cancels the
// rounding error of 1 + x.
HM_VEC_INLINE float log1p(float x) {
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  float r = vm::log(u) * (x / d);
  r = d == 0.0f ? x : r;
  return x == std::numeric_limits<float>::infinity() ? x : r;
}

// tanh: odd polynomial below 0.625, 1 - 2 / (e^{2|x|} + 1) above (no cancellation there).
HM_VEC_INLINE float tanh(float x) {
  const float ax = std::fabs(x);
  const float x2 = x * x;
  float q = 1.519537345e-02f;
  q = q * x2 - 5.194790289e-02f;
  q = q * x2 + 1.330817491e-01f;
  q = q * x2 - 3.333234191e-01f;
  const float small = ax + ax * x2 * q;
  const float big = 1.0f - 2.0f / (vm::exp(2.0f * ax) + 1.0f);
  return std::copysign(ax < 0.625f ? small : big, x);  // odd, and keeps -0
}

// erf(x) = x P(x^2) / Q(x^2) on |x| <= 3.92; beyond that erf rounds to +-1 in float.
namespace detail {
struct Rational {
  float p[5], q[7];
};
// The coefficients of erf's x P(x^2) / Q(x^2) with P's k-th scaled by sp s^(2k+1) and Q's by
// s^(2k): that rational evaluated at x gives sp erf(s x).
constexpr Rational scaled_erf(double s, double sp) {
  constexpr double p[] = {1.128379107e+00, 1.897180527e-01, 5.149841681e-02, 3.581085010e-03, 2.303793008e-04};
  constexpr double q[] = {1.0, 5.014656782e-01, 1.127992794e-01, 1.442652754e-02, 1.053800923e-03, 2.315941856e-05,
                          -1.122101452e-07};
  Rational r{};
  double pk = sp * s;
  for (int k = 0; k < 7; ++k, pk *= s * s) {
    if (k < 5) r.p[k] = static_cast<float>(p[k] * pk);
    r.q[k] = static_cast<float>(q[k] * (pk / (sp * s)));
  }
  return r;
}
inline constexpr Rational kErf = scaled_erf(1.0, 1.0);
inline constexpr Rational kNdtr = scaled_erf(0.70710678118654752440, 0.5);

HM_VEC_INLINE float erf_rational(float x, const Rational& c) {
  const float t = x * x;
  float p = c.p[4];
  p = p * t + c.p[3];
  p = p * t + c.p[2];
  p = p * t + c.p[1];
  p = p * t + c.p[0];
  float q = c.q[6];
  q = q * t + c.q[5];
  q = q * t + c.q[4];
  q = q * t + c.q[3];
  q = q * t + c.q[2];
  q = q * t + c.q[1];
  q = q * t + c.q[0];
  return x * p / q;
}
}  // namespace detail

HM_VEC_INLINE float erf(float x) {
  x = std::min(std::max(x, -3.92f), 3.92f);
  const float r = detail::erf_rational(x, detail::kErf);
  return std::min(std::max(r, -1.0f), 1.0f);  // the fit overshoots 1 by an ulp near 3.8
}

// The standard normal CDF Phi(x) = (1 + erf(x / sqrt 2)) / 2 with the 1/sqrt 2 and 1/2 folded
// into the erf coefficients: the core of gelu, two multiplies cheaper than going through erf.
// No output clamp (it costs gelu a third of its time): Phi may exceed 1 by an ulp.
HM_VEC_INLINE float ndtr(float x) {
  x = std::min(std::max(x, -5.5437f), 5.5437f);  // 3.92 sqrt 2
  return 0.5f + detail::erf_rational(x, detail::kNdtr);
}

HM_VEC_INLINE float sigmoid(float x) { return 1.0f / (1.0f + vm::exp(-x)); }

}  // namespace hm::vm

namespace hm {

// The math policy of the CPU kernels (see ops/unary_functors.h): vectorisable float32
// versions, libm for float64.
struct CpuMath {
  HM_VEC_INLINE static float exp(float x) { return vm::exp(x); }
  HM_VEC_INLINE static float log(float x) { return vm::log(x); }
  HM_VEC_INLINE static float log1p(float x) { return vm::log1p(x); }
  HM_VEC_INLINE static float tanh(float x) { return vm::tanh(x); }
  HM_VEC_INLINE static float erf(float x) { return vm::erf(x); }
  HM_VEC_INLINE static float ndtr(float x) { return vm::ndtr(x); }
  HM_VEC_INLINE static double exp(double x) { return std::exp(x); }
  HM_VEC_INLINE static double log(double x) { return std::log(x); }
  HM_VEC_INLINE static double log1p(double x) { return std::log1p(x); }
  HM_VEC_INLINE static double tanh(double x) { return std::tanh(x); }
  HM_VEC_INLINE static double erf(double x) { return std::erf(x); }
  HM_VEC_INLINE static double ndtr(double x) { return 0.5 * (1.0 + std::erf(x * 0.70710678118654752440)); }
  template <class T> HM_VEC_INLINE static T sqrt(T x) { return std::sqrt(x); }
  template <class T> HM_VEC_INLINE static T sin(T x) { return std::sin(x); }
  template <class T> HM_VEC_INLINE static T cos(T x) { return std::cos(x); }
  template <class T> HM_VEC_INLINE static T pow(T x, T y) { return std::pow(x, y); }
};

}  // namespace hm

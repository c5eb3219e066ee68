// float32 pieces of log|sinc x| and its derivative for the fused Fourier attention
// (ops/cpu/fourier_attention.cpp): branch-free, call-free, so `#pragma omp simd` loops over
// keys vectorise. The float64 path uses the HM_HD functions of ops/fourier_attention_kernels.h.
//
// Range reduction by pi (not pi/2): x = n pi + r, |r| <= pi/2, so |sin x| = |sin r| and
// cot x = cot r, and one polynomial per function suffices:
//   S(u) = sin(r) / r           (u = r^2),  relative error 6e-9 on |r| <= pi/2,
//   Q(u) = (r cos r - sin r) / r^3,         relative error 1.3e-9,
// minimax fits by Lawson's reweighted least squares with S(0) = 1 and Q(0) = -1/3 fixed
// (the same method as ops/cpu/fit_vec_math.py). Then, with the floor F = kFourierSincFloor,
//   |sinc x| = S(u)                              (n = 0: no division, exact at x = 0)
//            = max(|r S(u)|, F |x|) / |x|        (n != 0)
//   cot x - 1/x = r Q / S + n pi / (r x)         (the second term only for n != 0)
//               = (r Q t + n pi S) / (S t),  t = n == 0 ? 1 : r x,   0 where |sinc| <= F.
// The reduction is exact for |x| < 2^22 (three-part pi with FMA); larger |x| (where float x
// has no fractional bits) is clamped to +-2^22 for the sine only, so |sinc| stays <= 1/|x|.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "harmonic/ops/cpu/vec_math.h"

namespace hm::vm {

struct PiReduced {
  float r;    // x - n pi, |r| <= pi/2
  float n;    // round(x / pi) (an integer)
  int32_t k;  // n as the low bits of an int: k & 1 is n's parity
};

HM_VEC_INLINE PiReduced reduce_pi(float x) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer in the low bits
  constexpr float kClamp = 4194304.0f;   // 2^22
  float xc = x > kClamp ? kClamp : x;    // one vminps/vmaxps each; NaN passes
  xc = xc < -kClamp ? -kClamp : xc;
  const float t = xc * 0.318309873f + kMagic;
  const float n = t - kMagic;
  float r = std::fma(-n, 3.14159274f, xc);  // pi = 3.14159274 - 8.74227766e-8 - 3.43024902e-15
  r = std::fma(-n, -8.74227766e-8f, r);
  r = std::fma(-n, -3.43024902e-15f, r);
  return {r, n, std::bit_cast<int32_t>(t)};
}

// S(u) = sin(r) / r, u = r^2 <= (pi/2)^2.
HM_VEC_INLINE float sinc_poly(float u) {
  float s = 2.60570584e-06f;
  s = s * u - 1.98095709e-04f;
  s = s * u + 8.33306584e-03f;
  s = s * u - 1.66666595e-01f;
  return s * u + 1.0f;
}

// Q(u) = (r cos r - sin r) / r^3, u = r^2 <= (pi/2)^2.
HM_VEC_INLINE float cot_poly(float u) {
  float q = -2.39045672e-07f;
  q = q * u + 2.20218646e-05f;
  q = q * u - 1.19045625e-03f;
  q = q * u + 3.33333281e-02f;
  return q * u - 0.333333333f;
}

// |sinc x| as a quotient num / den, both >= floor * pi / 2 (normal floats, so their exponent
// and mantissa split cheaply); num / den = max(|sin x / x|, floor).
HM_VEC_INLINE void abs_sinc_quotient(float x, float floor, float& num, float& den) {
  const PiReduced p = reduce_pi(x);
  const float s = sinc_poly(p.r * p.r);
  const float ax = std::fabs(x);
  const bool n0 = p.n == 0.0f;
  num = n0 ? s : std::max(std::fabs(p.r * s), floor * ax);
  den = n0 ? 1.0f : ax;
}

// log|sinc x| clamped at log(floor) (tests and short loops; the attention kernel keeps the
// quotients in mantissa/exponent form and takes one log per row of dimensions).
HM_VEC_INLINE float log_abs_sinc(float x, float floor) {
  float num, den;
  abs_sinc_quotient(x, floor, num, den);
  return vm::log(num) - vm::log(den);
}

// d/dx log|sinc x| = cot x - 1/x; 0 where |sinc x| <= floor (the clamped function's slope).
HM_VEC_INLINE float dlog_abs_sinc(float x, float floor) {
  const PiReduced p = reduce_pi(x);
  const float u = p.r * p.r;
  const float s = sinc_poly(u), q = cot_poly(u);
  const bool n0 = p.n == 0.0f;
  const float t = n0 ? 1.0f : p.r * x;
  const float num = p.r * q * t + (p.n * 3.14159265f) * s;
  const float d = num / (s * t);
  const bool clamped = !n0 && std::fabs(p.r * s) <= floor * std::fabs(x);
  return clamped ? 0.0f : d;
}

// Splits a positive normal float into its biased exponent and mantissa in [1, 2).
HM_VEC_INLINE float split_mantissa(float v, int32_t& biased_exp) {
  const int32_t b = std::bit_cast<int32_t>(v);
  biased_exp = b >> 23;
  return std::bit_cast<float>((b & 0x007fffff) | 0x3f800000);
}

}  // namespace hm::vm

// The math policy of the CUDA kernels (see ops/unary_functors.h): CUDA's libm, expf/logf/
// erff/... for float32 and exp/log/erf/... for float64, the correctly rounded or few-ulp
// versions (not the __expf-style intrinsics). nvcc declares these __host__ __device__, so
// the host twins (cuda/runtime/emulation.h) run the same formulas through the host's libm; the
// device's results may differ from the host's in the last bits, which the device tests'
// normalised-error tolerance absorbs.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm::cuda {

// clang-format off
struct CudaMath {
  HM_HD static float exp(float x) { return expf(x); }
  HM_HD static float log(float x) { return logf(x); }
  HM_HD static float log1p(float x) { return log1pf(x); }
  HM_HD static float tanh(float x) { return tanhf(x); }
  HM_HD static float erf(float x) { return erff(x); }
  // Phi(x) in the erf form of the CPU kernels (ops/cpu/vec_math.h, StdMath).
  HM_HD static float ndtr(float x) { return 0.5f * (1.0f + erff(x * 0.70710678118654752440f)); }
  HM_HD static float sqrt(float x) { return sqrtf(x); }
  HM_HD static float sin(float x) { return sinf(x); }
  HM_HD static float cos(float x) { return cosf(x); }
  HM_HD static float pow(float x, float y) { return powf(x, y); }
  HM_HD static double exp(double x) { return ::exp(x); }
  HM_HD static double log(double x) { return ::log(x); }
  HM_HD static double log1p(double x) { return ::log1p(x); }
  HM_HD static double tanh(double x) { return ::tanh(x); }
  HM_HD static double erf(double x) { return ::erf(x); }
  HM_HD static double ndtr(double x) { return 0.5 * (1.0 + ::erf(x * 0.70710678118654752440)); }
  HM_HD static double sqrt(double x) { return ::sqrt(x); }
  HM_HD static double sin(double x) { return ::sin(x); }
  HM_HD static double cos(double x) { return ::cos(x); }
  HM_HD static double pow(double x, double y) { return ::pow(x, y); }
};
// clang-format on

// Same-size unsigned storage for kernels that only move elements (where, flip, gather...):
// one instantiation per element size instead of one per dtype.
template <size_t N>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = uint8_t;
};
template <>
struct BitsOf<2> {
  using type = uint16_t;
};
template <>
struct BitsOf<4> {
  using type = uint32_t;
};
template <>
struct BitsOf<8> {
  using type = uint64_t;
};
template <class T>
using Bits = typename BitsOf<sizeof(T)>::type;

}  // namespace hm::cuda

// SIMD lanes for batched FFTs (ops/cpu/fft_real.cpp): Lanes<T> holds one element of kLanes<T>
// rows side by side (8 floats or 4 doubles, 32 bytes), so a block of rows runs the plans'
// stages as whole-vector operations regardless of each stage's m and s (the scalar path only
// vectorises along whichever of j, q is long). Moving a block of rows in and out of that layout
// is an L x L transpose per L elements, done in registers by shuffles.
// GCC (>= 12) / Clang vector extensions: without AVX the 32-byte vectors are split in two by the compiler.
#pragma once
#include <cstdint>
#include <cstring>
#include <utility>

#include "harmonic/ops/cpu/fft_lane_type.h"

namespace hm::cpu_fft {

namespace lanes_detail {

// __builtin_shufflevector indices (0..L-1 from a, L..2L-1 from b) for one transpose round swapping bit B of
// the row with bit B of the lane: row l (bit B clear) and row l | B exchange half their lanes.
constexpr int swap_low(int j, int b, int L) { return (j & b) ? (j ^ b) + L : j; }
constexpr int swap_high(int j, int b, int L) { return (j & b) ? j + L : (j ^ b); }
constexpr int even_of(int j) { return 2 * j; }  // de-interleave (a, b) = (re, im, re, im, ...)
constexpr int odd_of(int j) { return 2 * j + 1; }
constexpr int zip_low(int j, int L) { return (j & 1) ? j / 2 + L : j / 2; }  // interleave a, b
constexpr int zip_high(int j, int L) { return (j & 1) ? (j + L) / 2 + L : (j + L) / 2; }

template <class T, int B, int... J>
inline void transpose_round(Lanes<T>* v, std::integer_sequence<int, J...>) {
  constexpr int L = kLanes<T>;
  for (int l = 0; l < L; ++l)
    if (!(l & B)) {
      const Lanes<T> a = v[l], c = v[l | B];
      v[l] = __builtin_shufflevector(a, c, swap_low(J, B, L)...);
      v[l | B] = __builtin_shufflevector(a, c, swap_high(J, B, L)...);
    }
}

template <class T, int B = 1>
inline void transpose(Lanes<T>* v) {
  transpose_round<T, B>(v, std::make_integer_sequence<int, kLanes<T>>{});
  if constexpr (2 * B < kLanes<T>) transpose<T, 2 * B>(v);
}

template <class T, int... J>
inline void split(const Lanes<T>& a, const Lanes<T>& b, Lanes<T>& re, Lanes<T>& im, std::integer_sequence<int, J...>) {
  re = __builtin_shufflevector(a, b, even_of(J)...), im = __builtin_shufflevector(a, b, odd_of(J)...);
}

template <class T, int... J>
inline void zip(const Lanes<T>& re, const Lanes<T>& im, Lanes<T>& a, Lanes<T>& b, std::integer_sequence<int, J...>) {
  constexpr int L = kLanes<T>;
  a = __builtin_shufflevector(re, im, zip_low(J, L)...), b = __builtin_shufflevector(re, im, zip_high(J, L)...);
}

// Unaligned moves; by reference, since passing 32-byte vectors by value has an ABI that
// depends on -mavx (-Wpsabi in builds without -march=native).
template <class T>
inline void load(Lanes<T>& v, const T* p) {
  std::memcpy(&v, p, sizeof v);
}
template <class T>
inline void store(T* p, const Lanes<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace lanes_detail

// kLanes<T> rows x + l ld of count interleaved complex values (re, im) -> zr, zi (count):
// lane l of zr[j] is Re x_l[j].
template <class T>
void gather_complex(const T* x, int64_t ld, int64_t count, Lanes<T>* zr, Lanes<T>* zi) {
  namespace d = lanes_detail;
  constexpr int L = kLanes<T>;
  int64_t j0 = 0;
  for (; j0 + L <= count; j0 += L) {
    Lanes<T> re[L], im[L];
    for (int l = 0; l < L; ++l) {
      Lanes<T> a, b;
      d::load(a, x + l * ld + 2 * j0), d::load(b, x + l * ld + 2 * j0 + L);
      d::split<T>(a, b, re[l], im[l], std::make_integer_sequence<int, L>{});
    }
    d::transpose<T>(re), d::transpose<T>(im);
    for (int j = 0; j < L; ++j) zr[j0 + j] = re[j], zi[j0 + j] = im[j];
  }
  for (; j0 < count; ++j0)
    for (int l = 0; l < L; ++l) zr[j0][l] = x[l * ld + 2 * j0], zi[j0][l] = x[l * ld + 2 * j0 + 1];
}

// zr, zi (count) -> kLanes<T> rows out + l ld of count interleaved complex values, times scale.
template <class T>
void scatter_complex(const Lanes<T>* zr, const Lanes<T>* zi, int64_t count, T* out, int64_t ld, T scale) {
  namespace d = lanes_detail;
  constexpr int L = kLanes<T>;
  int64_t j0 = 0;
  for (; j0 + L <= count; j0 += L) {
    Lanes<T> re[L], im[L];
    for (int j = 0; j < L; ++j) re[j] = zr[j0 + j] * scale, im[j] = zi[j0 + j] * scale;
    d::transpose<T>(re), d::transpose<T>(im);
    for (int l = 0; l < L; ++l) {
      Lanes<T> a, b;
      d::zip<T>(re[l], im[l], a, b, std::make_integer_sequence<int, L>{});
      T* p = out + l * ld + 2 * j0;
      d::store(p, a), d::store(p + L, b);
    }
  }
  for (; j0 < count; ++j0)
    for (int l = 0; l < L; ++l) out[l * ld + 2 * j0] = zr[j0][l] * scale, out[l * ld + 2 * j0 + 1] = zi[j0][l] * scale;
}

// kLanes<T> real rows x + l ld (count) -> z (count).
template <class T>
void gather_real(const T* x, int64_t ld, int64_t count, Lanes<T>* z) {
  namespace d = lanes_detail;
  constexpr int L = kLanes<T>;
  int64_t j0 = 0;
  for (; j0 + L <= count; j0 += L) {
    Lanes<T> v[L];
    for (int l = 0; l < L; ++l) d::load(v[l], x + l * ld + j0);
    d::transpose<T>(v);
    for (int j = 0; j < L; ++j) z[j0 + j] = v[j];
  }
  for (; j0 < count; ++j0)
    for (int l = 0; l < L; ++l) z[j0][l] = x[l * ld + j0];
}

// z (count) -> kLanes<T> real rows out + l ld (count), times scale.
template <class T>
void scatter_real(const Lanes<T>* z, int64_t count, T* out, int64_t ld, T scale) {
  namespace d = lanes_detail;
  constexpr int L = kLanes<T>;
  int64_t j0 = 0;
  for (; j0 + L <= count; j0 += L) {
    Lanes<T> v[L];
    for (int j = 0; j < L; ++j) v[j] = z[j0 + j] * scale;
    d::transpose<T>(v);
    for (int l = 0; l < L; ++l) d::store(out + l * ld + j0, v[l]);
  }
  for (; j0 < count; ++j0)
    for (int l = 0; l < L; ++l) out[l * ld + j0] = z[j0][l] * scale;
}

}  // namespace hm::cpu_fft

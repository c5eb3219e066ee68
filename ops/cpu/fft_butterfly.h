// The Stockham stage and its radix-p butterflies (ops/cpu/fft_plan.cpp), written once for two
// value types V: the scalar T (one row) and Lanes<T> (ops/cpu/fft_lanes.h: one element of
// kLanes<T> rows side by side, so every load, store and butterfly is one SIMD operation
// whatever the stage's m and s). S is the scalar type of the constants and twiddles.
//
// Stockham, decimation in frequency: with n_cur = p m, input index j + k m (j < m, k < p) and
// output index t + p u, X_{t + p u} = sum_j w_m^{j u} [w_{n_cur}^{j t} sum_k x_{j + k m} w_p^{k t}],
// so one stage does m * s radix-p butterflies, multiplies by w_{n_cur}^{j t} and leaves p
// sub-problems of length m interleaved at stride s p.
#pragma once
#include <cstdint>
#include <type_traits>

#include "harmonic/ops/cpu/fft_lanes.h"

namespace hm::cpu_fft {

constexpr int kMaxButterfly = 13;  // = kMaxRadix (ops/cpu/fft_plan.h)

// A radix-p DFT of (ar, ai)[0..p) in place, sign -1. P = 0: generic p with roots w_p^k in rr, ri.
template <class S, class V, int P>
inline void butterfly(V* ar, V* ai, int p, const S* rr, const S* ri) {
  if constexpr (P == 2) {
    const V r0 = ar[0], i0 = ai[0];
    ar[0] = r0 + ar[1], ai[0] = i0 + ai[1];
    ar[1] = r0 - ar[1], ai[1] = i0 - ai[1];
  } else if constexpr (P == 4) {
    const V t0r = ar[0] + ar[2], t0i = ai[0] + ai[2], t1r = ar[0] - ar[2], t1i = ai[0] - ai[2];
    const V t2r = ar[1] + ar[3], t2i = ai[1] + ai[3], t3r = ar[1] - ar[3], t3i = ai[1] - ai[3];
    ar[0] = t0r + t2r, ai[0] = t0i + t2i;
    ar[2] = t0r - t2r, ai[2] = t0i - t2i;
    ar[1] = t1r + t3i, ai[1] = t1i - t3r;       // t1 - i t3
    ar[3] = t1r - t3i, ai[3] = t1i + t3r;       // t1 + i t3
  } else if constexpr (P == 8) {                // two radix-4 halves, the odd one twiddled by w_8^t
    constexpr S h = S(0.70710678118654752440);  // 1 / sqrt(2)
    V er[4] = {ar[0], ar[2], ar[4], ar[6]}, ei[4] = {ai[0], ai[2], ai[4], ai[6]};
    V orr[4] = {ar[1], ar[3], ar[5], ar[7]}, oi[4] = {ai[1], ai[3], ai[5], ai[7]};
    butterfly<S, V, 4>(er, ei, 4, rr, ri);
    butterfly<S, V, 4>(orr, oi, 4, rr, ri);
    V x = orr[1], y = oi[1];
    orr[1] = h * (x + y), oi[1] = h * (y - x);  // (1 - i) / sqrt 2
    x = orr[2], y = oi[2];
    orr[2] = y, oi[2] = -x;  // -i
    x = orr[3], y = oi[3];
    orr[3] = h * (y - x), oi[3] = -h * (x + y);  // (-1 - i) / sqrt 2
    for (int t = 0; t < 4; ++t) {
      ar[t] = er[t] + orr[t], ai[t] = ei[t] + oi[t];
      ar[t + 4] = er[t] - orr[t], ai[t + 4] = ei[t] - oi[t];
    }
  } else if constexpr (P == 3) {
    constexpr S s = S(0.86602540378443864676);  // sin(2 pi / 3)
    const V t1r = ar[1] + ar[2], t1i = ai[1] + ai[2], t2r = ar[1] - ar[2], t2i = ai[1] - ai[2];
    const V mr = ar[0] - S(0.5) * t1r, mi = ai[0] - S(0.5) * t1i;
    ar[0] += t1r, ai[0] += t1i;
    ar[1] = mr + s * t2i, ai[1] = mi - s * t2r;
    ar[2] = mr - s * t2i, ai[2] = mi + s * t2r;
  } else if constexpr (P == 5) {
    constexpr S c1 = S(0.30901699437494742410), c2 = S(-0.80901699437494742410);  // cos(2 pi k / 5)
    constexpr S s1 = S(0.95105651629515357212), s2 = S(0.58778525229247312917);   // sin(2 pi k / 5)
    const V t1r = ar[1] + ar[4], t1i = ai[1] + ai[4], t2r = ar[2] + ar[3], t2i = ai[2] + ai[3];
    const V t3r = ar[1] - ar[4], t3i = ai[1] - ai[4], t4r = ar[2] - ar[3], t4i = ai[2] - ai[3];
    const V b1r = ar[0] + c1 * t1r + c2 * t2r, b1i = ai[0] + c1 * t1i + c2 * t2i;
    const V b2r = ar[0] + c2 * t1r + c1 * t2r, b2i = ai[0] + c2 * t1i + c1 * t2i;
    const V u1r = s1 * t3r + s2 * t4r, u1i = s1 * t3i + s2 * t4i;  // b1 = base1 - i u1, b4 = base1 + i u1
    const V u2r = s2 * t3r - s1 * t4r, u2i = s2 * t3i - s1 * t4i;  // b2 = base2 - i u2, b3 = base2 + i u2
    ar[0] += t1r + t2r, ai[0] += t1i + t2i;
    ar[1] = b1r + u1i, ai[1] = b1i - u1r;
    ar[4] = b1r - u1i, ai[4] = b1i + u1r;
    ar[2] = b2r + u2i, ai[2] = b2i - u2r;
    ar[3] = b2r - u2i, ai[3] = b2i + u2r;
  } else {
    V br[kMaxButterfly], bi[kMaxButterfly];
    for (int t = 0; t < p; ++t) {
      V sr{}, si{};
      for (int k = 0, kt = 0; k < p; ++k, kt = (kt + t) % p) {
        sr += ar[k] * rr[kt] - ai[k] * ri[kt];
        si += ar[k] * ri[kt] + ai[k] * rr[kt];
      }
      br[t] = sr, bi[t] = si;
    }
    for (int t = 0; t < p; ++t) ar[t] = br[t], ai[t] = bi[t];
  }
}

// One Stockham stage x -> y (both n_cur * s elements of V): radix P (0 = generic p_rt), twiddles
// (m, p - 1). Scalar rows: the inner loop runs over the s contiguous sub-problems (or over j
// while s is small) so it vectorises; lanes are already vectors, so j, q is simply row-major.
template <class S, class V, int P>
void run_stage(const V* xr, const V* xi, V* yr, V* yi, int p_rt, int64_t m, int64_t s, const S* wr, const S* wi,
               const S* rr, const S* ri) {
  constexpr int kArr = P ? P : kMaxButterfly;
  const int p = P ? P : p_rt;
  auto body = [&](int64_t j, int64_t q, const S* twr, const S* twi) {
    V ar[kArr], ai[kArr];
    for (int k = 0; k < p; ++k) ar[k] = xr[q + s * (j + k * m)], ai[k] = xi[q + s * (j + k * m)];
    butterfly<S, V, P>(ar, ai, p, rr, ri);
    const int64_t o = q + s * p * j;
    yr[o] = ar[0], yi[o] = ai[0];
    for (int t = 1; t < p; ++t)
      yr[o + s * t] = ar[t] * twr[t - 1] - ai[t] * twi[t - 1], yi[o + s * t] = ar[t] * twi[t - 1] + ai[t] * twr[t - 1];
  };
  if constexpr (!std::is_same_v<S, V>) {
    for (int64_t j = 0; j < m; ++j)
      for (int64_t q = 0; q < s; ++q) body(j, q, wr + j * (p - 1), wi + j * (p - 1));
  } else if (s >= 4) {
    for (int64_t j = 0; j < m; ++j) {
      const S *twr = wr + j * (p - 1), *twi = wi + j * (p - 1);
#pragma omp simd
      for (int64_t q = 0; q < s; ++q) body(j, q, twr, twi);
    }
  } else {
    for (int64_t q = 0; q < s; ++q)
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) body(j, q, wr + j * (p - 1), wi + j * (p - 1));
  }
}

// The first stage (s = 1) of one row, vectorised along j: kLanes<T> consecutive j per step run
// their butterflies as Lanes<T>, and the p outputs of each j (contiguous in y: index p j + t)
// are put in place by L x L register transposes, where the plain loop would gather twiddles
// and scatter stores at stride p. Twiddles transposed to (p - 1, m), contiguous in j.
template <class T, int P>
void run_first_stage(const T* xr, const T* xi, T* yr, T* yi, int64_t m, const T* wtr, const T* wti) {
  using V = Lanes<T>;
  namespace d = lanes_detail;
  constexpr int L = kLanes<T>;
  static_assert(P % L == 0, "the output transposes need whole L x L blocks");
  int64_t j = 0;
  for (; j + L <= m; j += L) {
    V ar[P], ai[P];
    for (int k = 0; k < P; ++k) d::load(ar[k], xr + j + k * m), d::load(ai[k], xi + j + k * m);
    butterfly<T, V, P>(ar, ai, P, nullptr, nullptr);
    for (int t = 1; t < P; ++t) {
      V cr, ci;
      d::load(cr, wtr + (t - 1) * m + j), d::load(ci, wti + (t - 1) * m + j);
      const V r = ar[t] * cr - ai[t] * ci;
      ai[t] = ar[t] * ci + ai[t] * cr, ar[t] = r;
    }
    for (int g = 0; g < P; g += L) d::transpose<T>(ar + g), d::transpose<T>(ai + g);
    for (int jj = 0; jj < L; ++jj)
      for (int g = 0; g < P; g += L) d::store(yr + P * (j + jj) + g, ar[g + jj]), d::store(yi + P * (j + jj) + g, ai[g + jj]);
  }
  for (; j < m; ++j) {  // the last m % L (and m = 1 in place: all loads precede the stores)
    T ar[P], ai[P];
    for (int k = 0; k < P; ++k) ar[k] = xr[j + k * m], ai[k] = xi[j + k * m];
    butterfly<T, T, P>(ar, ai, P, nullptr, nullptr);
    yr[P * j] = ar[0], yi[P * j] = ai[0];
    for (int t = 1; t < P; ++t) {
      const T cr = wtr[(t - 1) * m + j], ci = wti[(t - 1) * m + j];
      yr[P * j + t] = ar[t] * cr - ai[t] * ci, yi[P * j + t] = ar[t] * ci + ai[t] * cr;
    }
  }
}

}  // namespace hm::cpu_fft

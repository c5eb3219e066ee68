// Real FFT plans (ops/cpu/fft_plan.h) and the batched row transforms the kernel slots call.
//
// Even n = 2h: z_j = x_2j + i x_2j+1 has Z = E + i O, where E, O are the DFTs of the even and
// odd samples; since E, O are Hermitian, E_k = (Z_k + conj Z_{h-k}) / 2 and
// O_k = (Z_k - conj Z_{h-k}) / 2i, and X_k = E_k + w_n^k O_k for k = 0..h. The C2R direction
// runs the same algebra backwards: 2 Z_k = (X_k + conj X_{h-k}) + i w_n^{-k} (X_k - conj X_{h-k}),
// then one inverse half-length transform gives x_2j + i x_2j+1 (times n).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/fft_lanes.h"
#include "harmonic/ops/cpu/fft_plan.h"

namespace hm::cpu_fft {

template <class T>
RealPlan<T>::RealPlan(int64_t n) : n_(n) {
  if (n % 2 == 0) {
    const int64_t h = n / 2;
    plan_ = plan<T>(h);
    wr_.resize(h), wi_.resize(h);
    for (int64_t k = 0; k < h; ++k) {
      const double a = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      wr_[k] = static_cast<T>(std::cos(a)), wi_[k] = static_cast<T>(std::sin(a));
    }
    work_ = 2 * h + plan_->work_size();
    lanes_work_ = 2 * (h + 1) + plan_->work_size();  // bins 0..h in place, then the plan's scratch
  } else {
    plan_ = plan<T>(n);
    work_ = 2 * n + plan_->work_size();
    lanes_work_ = work_;
  }
}

template <class T>
void RealPlan<T>::r2c(const T* x, T* out, T scale, T* work) const {
  if (n_ % 2) {
    T *zr = work, *zi = work + n_;
    for (int64_t j = 0; j < n_; ++j) zr[j] = x[j], zi[j] = 0;
    plan_->forward(zr, zi, work + 2 * n_);
    for (int64_t k = 0; k <= n_ / 2; ++k) out[2 * k] = zr[k] * scale, out[2 * k + 1] = zi[k] * scale;
    return;
  }
  const int64_t h = n_ / 2;
  T *zr = work, *zi = work + h;
#pragma omp simd
  for (int64_t j = 0; j < h; ++j) zr[j] = x[2 * j], zi[j] = x[2 * j + 1];
  plan_->forward(zr, zi, work + 2 * h);
  const T half = T(0.5) * scale;
  // DC and Nyquist: Z_0 = E_0 + i O_0 with E_0, O_0 real.
  out[0] = (zr[0] + zi[0]) * scale, out[1] = 0;
  out[2 * h] = (zr[0] - zi[0]) * scale, out[2 * h + 1] = 0;
  const T *wr = wr_.data(), *wi = wi_.data();
#pragma omp simd
  for (int64_t k = 1; k < h; ++k) {
    const int64_t b = h - k;
    const T sr = zr[k] + zr[b], si = zi[k] - zi[b];   // Z_k + conj Z_{h-k} = 2 E_k
    const T orr = zi[k] + zi[b], oi = zr[b] - zr[k];  // -i (Z_k - conj Z_{h-k}) = 2 O_k
    out[2 * k] = (sr + wr[k] * orr - wi[k] * oi) * half;
    out[2 * k + 1] = (si + wr[k] * oi + wi[k] * orr) * half;
  }
}

template <class T>
void RealPlan<T>::c2r(const T* in, T* x, T scale, T* work) const {
  if (n_ % 2) {
    T *zr = work, *zi = work + n_;
    zr[0] = in[0], zi[0] = 0;
    for (int64_t k = 1; k <= n_ / 2; ++k)
      zr[k] = in[2 * k], zi[k] = in[2 * k + 1], zr[n_ - k] = in[2 * k], zi[n_ - k] = -in[2 * k + 1];
    plan_->inverse(zr, zi, work + 2 * n_);
    for (int64_t j = 0; j < n_; ++j) x[j] = zr[j] * scale;
    return;
  }
  const int64_t h = n_ / 2;
  T *zr = work, *zi = work + h;
  // k = 0 pairs X_0 with X_h, both taken as real (their imaginary parts are ignored).
  zr[0] = in[0] + in[2 * h], zi[0] = in[0] - in[2 * h];
  const T *wr = wr_.data(), *wi = wi_.data();
#pragma omp simd
  for (int64_t k = 1; k < h; ++k) {
    const T xr = in[2 * k], xi = in[2 * k + 1];               // X_k
    const T cr = in[2 * (h - k)], ci = -in[2 * (h - k) + 1];  // conj X_{h-k}
    const T sr = xr + cr, si = xi + ci, dr = xr - cr, di = xi - ci;
    const T pr = wr[k] * dr + wi[k] * di, pi = wr[k] * di - wi[k] * dr;  // w_n^{-k} D
    zr[k] = sr - pi, zi[k] = si + pr;                                    // S + i w^{-k} D
  }
  plan_->inverse(zr, zi, work + 2 * h);
#pragma omp simd
  for (int64_t j = 0; j < h; ++j) x[2 * j] = zr[j] * scale, x[2 * j + 1] = zi[j] * scale;
}

// The lane versions run the same algebra on kLanes<T> rows; the even-n untangle works in
// place on the pair (k, h - k), since X_k and X_{h-k} both need exactly Z_k and Z_{h-k}.
template <class T>
void RealPlan<T>::r2c_lanes(const T* x, int64_t ld_x, T* out, int64_t ld_out, T scale, Lanes<T>* work) const {
  using V = Lanes<T>;
  if (n_ % 2) {
    V *zr = work, *zi = work + n_;
    gather_real(x, ld_x, n_, zr);
    for (int64_t j = 0; j < n_; ++j) zi[j] = V{};
    plan_->forward_lanes(zr, zi, work + 2 * n_);
    scatter_complex(zr, zi, n_ / 2 + 1, out, ld_out, scale);
    return;
  }
  const int64_t h = n_ / 2;
  V *zr = work, *zi = work + h + 1;
  gather_complex(x, ld_x, h, zr, zi);  // z_j = x_2j + i x_2j+1
  plan_->forward_lanes(zr, zi, work + 2 * (h + 1));
  const T *wr = wr_.data(), *wi = wi_.data();
  // Everything below is 2 X_k; the scatter's scale / 2 takes the half (exactly: powers of two).
  zr[h] = (zr[0] - zi[0]) * T(2), zi[h] = V{};  // DC and Nyquist: Z_0 = E_0 + i O_0, E_0, O_0 real
  zr[0] = (zr[0] + zi[0]) * T(2), zi[0] = V{};
  for (int64_t k = 1; 2 * k <= h; ++k) {
    const int64_t b = h - k;
    const V ar = zr[k], ai = zi[k], br = zr[b], bi = zi[b];
    const V sr = ar + br, si = ai - bi;   // 2 E_k = Z_k + conj Z_b; 2 E_b = conj(2 E_k)
    const V orr = ai + bi, oi = br - ar;  // 2 O_k = -i (Z_k - conj Z_b); 2 O_b = conj(2 O_k)
    const V tr = wr[k] * orr - wi[k] * oi, ti = wr[k] * oi + wi[k] * orr;  // w_n^k 2 O_k
    zr[k] = sr + tr, zi[k] = si + ti;
    // w_n^b = -conj w_n^k, so w_n^b conj(2 O_k) = -conj(w_n^k 2 O_k).
    zr[b] = sr - tr, zi[b] = ti - si;
  }
  scatter_complex(zr, zi, h + 1, out, ld_out, T(0.5) * scale);
}

template <class T>
void RealPlan<T>::c2r_lanes(const T* in, int64_t ld_in, T* x, int64_t ld_x, T scale, Lanes<T>* work) const {
  using V = Lanes<T>;
  if (n_ % 2) {
    V *zr = work, *zi = work + n_;
    gather_complex(in, ld_in, n_ / 2 + 1, zr, zi);
    zi[0] = V{};
    for (int64_t k = 1; k <= n_ / 2; ++k) zr[n_ - k] = zr[k], zi[n_ - k] = -zi[k];
    plan_->inverse_lanes(zr, zi, work + 2 * n_);
    scatter_real(zr, n_, x, ld_x, scale);
    return;
  }
  const int64_t h = n_ / 2;
  V *zr = work, *zi = work + h + 1;
  gather_complex(in, ld_in, h + 1, zr, zi);
  const T *wr = wr_.data(), *wi = wi_.data();
  for (int64_t k = 1; 2 * k <= h; ++k) {
    const int64_t b = h - k;
    const V xr = zr[k], xi = zi[k], cr = zr[b], ci = -zi[b];  // X_k, conj X_{h-k}
    const V sr = xr + cr, si = xi + ci, dr = xr - cr, di = xi - ci;
    const V pr = wr[k] * dr + wi[k] * di, pi = wr[k] * di - wi[k] * dr;  // w_n^{-k} D
    zr[k] = sr - pi, zi[k] = si + pr;  // S + i w_n^{-k} D
    // For b: S_b = conj S, D_b = -conj D and w_n^{-b} = -conj w_n^{-k}, so w_n^{-b} D_b = conj P.
    zr[b] = sr + pi, zi[b] = pr - si;
  }
  const V x0 = zr[0], xh = zr[h];  // X_0 and X_h taken as real
  zr[0] = x0 + xh, zi[0] = x0 - xh;
  plan_->inverse_lanes(zr, zi, work + 2 * (h + 1));
  scatter_complex(zr, zi, h, x, ld_x, scale);
}

namespace {

// Runs the rows in blocks of kLanes<T> through block(r0, lanes_work) and the remaining rows one
// by one through row(r, work), in parallel over blocks and rows; each thread owns its buffers.
template <class T, class Block, class Row>
void for_rows(int64_t rows, int64_t n, bool lanes, int64_t lanes_work, int64_t work, Block&& block, Row&& row) {
  constexpr int L = kLanes<T>;
  const int64_t blocks = lanes ? rows / L : 0, units = blocks + (rows - blocks * L);
  const int64_t cost = n * std::max<int64_t>(1, static_cast<int64_t>(std::log2(static_cast<double>(n) + 1))) * 4;
  parallel_for(units, blocks ? cost * L : cost, [&](int64_t u0, int64_t u1) {
    std::vector<Lanes<T>> lw;
    std::vector<T> w;
    for (int64_t u = u0; u < u1; ++u)
      if (u < blocks) {
        if (lw.empty()) lw.resize(static_cast<size_t>(lanes_work));
        block(u * L, lw.data());
      } else {
        if (w.empty()) w.resize(static_cast<size_t>(work));
        row(blocks * L + (u - blocks), w.data());
      }
  });
}

// Blocks of rows in lanes, or rows one by one? Lanes vectorise any plan, but a block's data
// and scratch (4 arrays of Lanes<T>) outgrow L1/L2 sooner; where the one-row path vectorises
// too (power-of-2-like plans) it wins past 64 KiB (rfft float32, 1 thread: (1000, 1024) lanes
// 1.4x faster; (256, 2048) and (256, 4096) rows 1.5-1.7x faster; Bluestein (64, 4099) lanes 1.2x).
template <class T>
bool use_lanes(const ComplexPlan<T>& p) {
  constexpr int64_t kBlockBytes = 64 << 10;
  return !p.row_vectorised() || 4 * p.size() * static_cast<int64_t>(sizeof(Lanes<T>)) <= kBlockBytes;
}

}  // namespace

template <class T>
void rfft_rows(const T* x, T* out, int64_t rows, int64_t n, T scale) {
  const auto p = real_plan<T>(n);
  const int64_t bins = n / 2 + 1;
  for_rows<T>(
      rows, n, use_lanes(p->complex_plan()), p->lanes_work_size(), p->work_size(),
      [&](int64_t r, Lanes<T>* w) { p->r2c_lanes(x + r * n, n, out + r * bins * 2, bins * 2, scale, w); },
      [&](int64_t r, T* w) { p->r2c(x + r * n, out + r * bins * 2, scale, w); });
}

template <class T>
void irfft_rows(const T* in, T* out, int64_t rows, int64_t n, T scale) {
  const auto p = real_plan<T>(n);
  const int64_t bins = n / 2 + 1;
  for_rows<T>(
      rows, n, use_lanes(p->complex_plan()), p->lanes_work_size(), p->work_size(),
      [&](int64_t r, Lanes<T>* w) { p->c2r_lanes(in + r * bins * 2, bins * 2, out + r * n, n, scale, w); },
      [&](int64_t r, T* w) { p->c2r(in + r * bins * 2, out + r * n, scale, w); });
}

template <class T>
void fft_rows(const T* in, T* out, int64_t rows, int64_t n, bool inverse, T scale) {
  const auto p = plan<T>(n);
  const int64_t work = 2 * n + p->work_size();
  auto block = [&](int64_t r, Lanes<T>* w) {
    Lanes<T> *zr = w, *zi = w + n;
    gather_complex(in + r * n * 2, 2 * n, n, zr, zi);
    if (inverse)
      p->inverse_lanes(zr, zi, w + 2 * n);
    else
      p->forward_lanes(zr, zi, w + 2 * n);
    scatter_complex(zr, zi, n, out + r * n * 2, 2 * n, scale);
  };
  auto row = [&](int64_t r, T* w) {
    T *zr = w, *zi = w + n;
    const T* a = in + r * n * 2;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) zr[j] = a[2 * j], zi[j] = a[2 * j + 1];
    if (inverse)
      p->inverse(zr, zi, w + 2 * n);
    else
      p->forward(zr, zi, w + 2 * n);
    T* b = out + r * n * 2;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) b[2 * j] = zr[j] * scale, b[2 * j + 1] = zi[j] * scale;
  };
  for_rows<T>(rows, n, use_lanes(*p), work, work, block, row);
}

template class RealPlan<float>;
template class RealPlan<double>;
template void rfft_rows<float>(const float*, float*, int64_t, int64_t, float);
template void rfft_rows<double>(const double*, double*, int64_t, int64_t, double);
template void irfft_rows<float>(const float*, float*, int64_t, int64_t, float);
template void irfft_rows<double>(const double*, double*, int64_t, int64_t, double);
template void fft_rows<float>(const float*, float*, int64_t, int64_t, bool, float);
template void fft_rows<double>(const double*, double*, int64_t, int64_t, bool, double);

}  // namespace hm::cpu_fft

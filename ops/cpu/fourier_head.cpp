// CPU kernels of the Fourier head: the log-pmf rows (see ops/fourier_head.cpp for the math; each
// row is independent) and the regulariser. With aC = alpha.C etc. at the half-grid bin j and its mirror m-1-j:
//   R_j = aC + bS, I_j = bC - aS;   R_mirror = aC - bS, I_mirror = bC + aS
//   q_j = P + D, q_mirror = P - D, P = aC^2 + aS^2 + bC^2 + bS^2, D = 2 (aC bS - bC aS).
// For odd m the middle bin (b = 0, S = 0) is its own mirror and is counted once.
// The regulariser, rows serially in double precision (a step has ~32 rows):
// Regulariser  r = sum_k k^2 |c_k|^2, c_k = sum_l a_l conj(a_{l+k}) (a_l = alpha_l + i beta_l):
//   dr/dalpha_j = sum_k 2 k^2 (Re c_k (alpha_{j+k} + alpha_{j-k}) + Im c_k (beta_{j-k} - beta_{j+k}))
//   dr/dbeta_j  = sum_k 2 k^2 (Re c_k (beta_{j+k} + beta_{j-k})  + Im c_k (alpha_{j+k} - alpha_{j-k}))
//   (terms with an index outside 0..N are zero).
#include <cmath>

#include "core/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/fourier_head_kernels.h"

namespace hm {
namespace {

constexpr double kPmfEps = 1e-5;

// The value of a one-element float tensor (an upstream gradient).
double scalar_of(const Tensor& g) { return g.dtype() == DType::Float32 ? double(*g.data<float>()) : *g.data<double>(); }

template <class T>
void log_pmf_row(const T* z, T* out, int64_t m) {  // z (4h), out (m)
  const int64_t h = (m + 1) / 2, pairs = m / 2;    // pairs: bins with a distinct mirror
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < pairs; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
    out[j] = p + d;
    out[m - 1 - j] = p - d;
    total += T(2) * p;
  }
  if (h > pairs) {  // odd m: the middle bin
    const int64_t j = pairs;
    T r = ac[j] + bs[j], i = bc[j] - as[j];
    out[j] = r * r + i * i;
    total += out[j];
  }
  const T inv = T(1) / total;
  const T eps = T(kPmfEps);
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) out[j] = CpuMath::log(out[j] * inv + eps);
}

// dL/dq_j = w_j = (h_j - sum_k h_k y_k) / Q with h_j = g_j / (y_j + eps); then, with w for the
// bin and v for its mirror, dq/dz by the chain rule through q_j = P + D and q_mirror = P - D.
template <class T>
void log_pmf_backward_row(const T* z, const T* g, T* gz, int64_t m) {  // z (4h), g (m), gz (4h)
  const int64_t h = (m + 1) / 2, pairs = m / 2;
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T *gac = gz, *gas = gz + h, *gbc = gz + 2 * h, *gbs = gz + 3 * h;
  const T eps = T(kPmfEps);
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < h; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    total += j < pairs ? T(2) * p : p;  // the middle bin's D is 0 (S = 0 there)
  }
  const T inv = T(1) / total;
  T hy = 0;
  // gac/gas hold h_j / h_mirror for now (the mirror's is 0 for the middle bin).
#pragma omp simd reduction(+ : hy)
  for (int64_t j = 0; j < h; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
    T y0 = (p + d) * inv, y1 = (p - d) * inv;
    T h0 = g[j] / (y0 + eps);
    T h1 = j < pairs ? g[m - 1 - j] / (y1 + eps) : T(0);
    gac[j] = h0;
    gas[j] = h1;
    hy += h0 * y0 + h1 * y1;
  }
#pragma omp simd
  for (int64_t j = 0; j < h; ++j) {
    T w = (gac[j] - hy) * inv;
    T v = j < pairs ? (gas[j] - hy) * inv : T(0);
    T sum = T(2) * (w + v), dif = T(2) * (w - v);
    T a_c = ac[j], a_s = as[j], b_c = bc[j], b_s = bs[j];
    gac[j] = a_c * sum + b_s * dif;
    gbs[j] = b_s * sum + a_c * dif;
    gbc[j] = b_c * sum - a_s * dif;
    gas[j] = a_s * sum - b_c * dif;
  }
}

void cpu_log_pmf(const Tensor& z, const Tensor& out) {
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    const T* pz = z.data<T>();
    T* po = out.data<T>();
    parallel_for(rows, 8 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_row(pz + r * zw, po + r * m, m);
    });
  });
}

void cpu_log_pmf_backward(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z) {
  const int64_t m = grad_out.size(-1), rows = m ? grad_out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf_backward", [&]<class T>() {
    const T* pz = z.data<T>();
    const T* pg = grad_out.data<T>();
    T* pd = grad_z.data<T>();
    parallel_for(rows, 12 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_backward_row(pz + r * zw, pg + r * m, pd + r * zw, m);
    });
  });
}

// -- regulariser --------------------------------------------------------------------------------

// Rows up to this N keep their coefficients on the stack.
constexpr int64_t kMaxStackFreq = 64;

// Per row: Re c_k, Im c_k for k = 1..n into re, im (index 0 unused); returns sum k^2 |c_k|^2.
template <class T>
double autocorr_row(const T* x, int64_t n, double* re, double* im) {
  double a[kMaxStackFreq + 1], b[kMaxStackFreq + 1];
  std::vector<double> heap;
  double *pa = a, *pb = b;
  if (n > kMaxStackFreq) heap.resize(2 * (n + 1)), pa = heap.data(), pb = heap.data() + n + 1;
  for (int64_t l = 0; l <= n; ++l) pa[l] = x[l], pb[l] = x[n + 1 + l];
  double r = 0;
  for (int64_t k = 1; k <= n; ++k) {
    double cr = 0, ci = 0;
#pragma omp simd reduction(+ : cr, ci)
    for (int64_t l = 0; l <= n - k; ++l) {
      cr += pa[l] * pa[l + k] + pb[l] * pb[l + k];
      ci += pb[l] * pa[l + k] - pa[l] * pb[l + k];
    }
    re[k] = cr, im[k] = ci;
    r += double(k * k) * (cr * cr + ci * ci);
  }
  return r;
}

void cpu_regularizer(const Tensor& x, double scale, const Tensor& corr, const Tensor& out) {
  const int64_t kk = x.size(-1), n = kk / 2 - 1, rows = x.numel() / kk;
  double* pc = corr.data<double>();
  dispatch_float(x.dtype(), "fourier_regularizer", [&]<class T>() {
    const T* px = x.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) total += autocorr_row(px + r * kk, n, pc + r * kk, pc + r * kk + n + 1);
    *out.data<T>() = static_cast<T>(scale * total / static_cast<double>(rows));
  });
}

void cpu_regularizer_backward(const Tensor& x, const Tensor& corr, const Tensor& grad_out, double scale,
                              const Tensor& grad_x) {
  const int64_t kk = x.size(-1), n = kk / 2 - 1, rows = x.numel() / kk;
  const double gs = scalar_of(grad_out) * scale / static_cast<double>(rows);
  const double* pc = corr.data<double>();
  // alpha, beta zero-padded by n on both sides, so a_{j+k} and a_{j-k} need no bounds tests.
  const int64_t w = 3 * n + 1;
  std::vector<double> ap(w, 0.0), bp(w, 0.0), ga(n + 1), gb(n + 1);
  dispatch_float(x.dtype(), "fourier_regularizer_backward", [&]<class T>() {
    const T* px = x.data<T>();
    T* pg = grad_x.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = px + r * kk;
      for (int64_t j = 0; j <= n; ++j) ap[n + j] = xr[j], bp[n + j] = xr[n + 1 + j], ga[j] = gb[j] = 0.0;
      const double *cr = pc + r * kk, *ci = pc + r * kk + n + 1;
      for (int64_t k = 1; k <= n; ++k) {
        const double wr = 2.0 * double(k * k) * cr[k], wi = 2.0 * double(k * k) * ci[k];
        const double *app = ap.data() + n + k, *apm = ap.data() + n - k;
        const double *bpp = bp.data() + n + k, *bpm = bp.data() + n - k;
        double *pga = ga.data(), *pgb = gb.data();
#pragma omp simd
        for (int64_t j = 0; j <= n; ++j) {
          pga[j] += wr * (app[j] + apm[j]) + wi * (bpm[j] - bpp[j]);
          pgb[j] += wr * (bpp[j] + bpm[j]) + wi * (app[j] - apm[j]);
        }
      }
      T* g = pg + r * kk;
      for (int64_t j = 0; j <= n; ++j) g[j] = static_cast<T>(gs * ga[j]), g[n + 1 + j] = static_cast<T>(gs * gb[j]);
    }
  });
}

[[maybe_unused]] const bool bound =
    (fourier_log_pmf_kernel.cpu = cpu_log_pmf, fourier_log_pmf_backward_kernel.cpu = cpu_log_pmf_backward,
     fourier_regularizer_kernel.cpu = cpu_regularizer,
     fourier_regularizer_backward_kernel.cpu = cpu_regularizer_backward, true);

}  // namespace
}  // namespace hm

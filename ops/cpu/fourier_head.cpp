// CPU kernels of the Fourier head: the log-pmf rows (ops/fourier_head_functors.h, the formula the
// CUDA kernels share; rows in parallel) and the regulariser.
// The regulariser, rows serially in double precision (a step has ~32 rows):
// Regulariser  r = sum_k k^2 |c_k|^2, c_k = sum_l a_l conj(a_{l+k}) (a_l = alpha_l + i beta_l):
//   dr/dalpha_j = sum_k 2 k^2 (Re c_k (alpha_{j+k} + alpha_{j-k}) + Im c_k (beta_{j-k} - beta_{j+k}))
//   dr/dbeta_j  = sum_k 2 k^2 (Re c_k (beta_{j+k} + beta_{j-k})  + Im c_k (alpha_{j+k} - alpha_{j-k}))
//   (terms with an index outside 0..N are zero).
#include <cmath>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/fourier_head_functors.h"
#include "harmonic/ops/fourier_head_kernels.h"

namespace hm {
namespace {

// The value of a one-element float tensor (an upstream gradient).
double scalar_of(const Tensor& g) { return g.dtype() == DType::Float32 ? double(*g.data<float>()) : *g.data<double>(); }

void cpu_log_pmf(const Tensor& z, const Tensor& out) {
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    const T* pz = z.data<T>();
    T* po = out.data<T>();
    parallel_for(rows, 8 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) fourier::log_pmf_row<CpuMath>(pz + r * zw, po + r * m, m);
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
      for (int64_t r = b; r < e; ++r) fourier::log_pmf_backward_row(pz + r * zw, pg + r * m, pd + r * zw, m);
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

[[maybe_unused]] const bool fourier_head_bound =
    (fourier_log_pmf_kernel.cpu = cpu_log_pmf, fourier_log_pmf_backward_kernel.cpu = cpu_log_pmf_backward,
     fourier_regularizer_kernel.cpu = cpu_regularizer,
     fourier_regularizer_backward_kernel.cpu = cpu_regularizer_backward, true);

}  // namespace
}  // namespace hm

// CPU kernels of the GMM head's binned log-pmf and density NLL (ops/head_losses_kernels.h).
// Rows are processed serially (a step has ~32 rows; the toy study runs whole trainings in
// parallel threads). Derivatives:
// Mixture component k at b: z = (b - mu_k) / s_k, w = exp(-z^2/2) / (s_k sqrt(2 pi) K):
//   dw/dmu_k = w z / s_k,  dw/ds_k = w (z^2 - 1) / s_k.
// GMM pmf d_j = sum_k w_kj, y = d / D (D = sum_j d_j), out = log(y + 1e-5); with g = dL/dout:
//   h_j = g_j / (y_j + 1e-5),  dL/dd_j = (h_j - sum_i h_i y_i) / D.
// The NLL uses s_k = |sd_k|, so ds_k/dsd_k = sign(sd_k).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/head_losses_kernels.h"

namespace hm {
namespace {

const double kInvSqrt2Pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);

// exp and log: vectorisable polynomial code for float32 (ops/cpu/vec_math.h), libm for float64.
HM_VEC_INLINE float exp_t(float x) { return vm::exp(x); }
HM_VEC_INLINE double exp_t(double x) { return std::exp(x); }
HM_VEC_INLINE float log_t(float x) { return vm::log(x); }
HM_VEC_INLINE double log_t(double x) { return std::log(x); }

// -- binned log-pmf -----------------------------------------------------------------------------

void cpu_log_pmf(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& out) {
  const int64_t k = mu.size(-1), rows = mu.numel() / k, m = out.size(-1);
  dispatch_float(mu.dtype(), "gmm_log_pmf", [&]<class T>() {
    const T *pmu = mu.data<T>(), *psd = sd.data<T>();
    T *po = out.data<T>(), *pw = w.data<T>();
    std::vector<T> centres(m), d(m);
    for (int64_t j = 0; j < m; ++j) centres[j] = static_cast<T>(-1.0 + static_cast<double>(2 * j + 1) / m);
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(d.begin(), d.end(), T(0));
      for (int64_t c = 0; c < k; ++c) {
        const T s = psd[c], u = pmu[r * k + c], inv_s = T(1) / s;
        const T norm = static_cast<T>(kInvSqrt2Pi / static_cast<double>(k)) * inv_s;
        T* wr = pw + (r * k + c) * m;
#pragma omp simd
        for (int64_t j = 0; j < m; ++j) {
          const T z = (centres[j] - u) * inv_s;
          wr[j] = exp_t(T(-0.5) * z * z) * norm;
          d[j] += wr[j];
        }
      }
      T total = 0;
      for (int64_t j = 0; j < m; ++j) total += d[j];
      const T inv_total = T(1) / total;
      T* orow = po + r * m;
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) orow[j] = log_t(d[j] * inv_total + T(1e-5));
    }
  });
}

void cpu_log_pmf_backward(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& grad_out,
                          const Tensor& grad_mu, const Tensor& grad_sd) {
  const int64_t k = mu.size(-1), rows = mu.numel() / k, m = grad_out.size(-1);
  dispatch_float(mu.dtype(), "gmm_log_pmf_backward", [&]<class T>() {
    const T *pmu = mu.data<T>(), *psd = sd.data<T>(), *pg = grad_out.data<T>(), *pw = w.data<T>();
    T* pgm = grad_mu.data<T>();
    std::vector<T> centres(m), d(m), e(m);
    std::vector<double> gs(k, 0.0);
    for (int64_t j = 0; j < m; ++j) centres[j] = static_cast<T>(-1.0 + static_cast<double>(2 * j + 1) / m);
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(d.begin(), d.end(), T(0));
      for (int64_t c = 0; c < k; ++c)
        for (int64_t j = 0; j < m; ++j) d[j] += pw[(r * k + c) * m + j];
      T total = 0;
      for (int64_t j = 0; j < m; ++j) total += d[j];
      const T inv_total = T(1) / total;
      T hy = 0;
      for (int64_t j = 0; j < m; ++j) {
        const T y = d[j] * inv_total;
        e[j] = pg[r * m + j] / (y + T(1e-5));
        hy += e[j] * y;
      }
      for (int64_t j = 0; j < m; ++j) e[j] = (e[j] - hy) * inv_total;  // dL/dd_j
      for (int64_t c = 0; c < k; ++c) {
        const T inv_s = T(1) / psd[c], u = pmu[r * k + c];
        const T* wr = pw + (r * k + c) * m;
        T a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
        for (int64_t j = 0; j < m; ++j) {
          const T z = (centres[j] - u) * inv_s, ew = e[j] * wr[j];
          a += ew * z, b += ew * (z * z - T(1));
        }
        pgm[r * k + c] = a * inv_s;
        gs[c] += static_cast<double>(b * inv_s);
      }
    }
    T* pgs = grad_sd.data<T>();
    for (int64_t c = 0; c < k; ++c) pgs[c] = static_cast<T>(gs[c]);
  });
}

// -- density NLL --------------------------------------------------------------------------------

// The density at t of one row (equal weights, s_k = |sd_k|); with w, z: each component's term
// and standardised value.
template <class T>
double density(const T* pmu, const T* psd, int64_t k, double t, double* w, double* z) {
  double p = 0;
  for (int64_t c = 0; c < k; ++c) {
    const double s = std::fabs(double(psd[c])), zz = (t - double(pmu[c])) / s;
    const double ww = std::exp(-0.5 * zz * zz) * kInvSqrt2Pi / (s * static_cast<double>(k));
    if (w) w[c] = ww, z[c] = zz;
    p += ww;
  }
  return p;
}

void cpu_nll(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& out) {
  const int64_t k = mu.size(-1), rows = mu.numel() / k;
  dispatch_float(mu.dtype(), "gmm_nll", [&]<class T>() {
    const T *pmu = mu.data<T>(), *psd = sd.data<T>(), *pt = t.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r)
      total -= std::log(density(pmu + r * k, psd, k, double(pt[r]), nullptr, nullptr) + 1e-10);
    *out.data<T>() = static_cast<T>(total / static_cast<double>(rows));
  });
}

void cpu_nll_backward(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& grad_out,
                      const Tensor& grad_mu, const Tensor& grad_sd) {
  const int64_t k = mu.size(-1), rows = mu.numel() / k;
  const double gsc = -head_loss_grad_value(grad_out) / static_cast<double>(rows);
  std::vector<double> w(k), z(k), gs(k, 0.0);
  dispatch_float(mu.dtype(), "gmm_nll_backward", [&]<class T>() {
    const T *pmu = mu.data<T>(), *psd = sd.data<T>(), *pt = t.data<T>();
    T* pgm = grad_mu.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const double p = density(pmu + r * k, psd, k, double(pt[r]), w.data(), z.data());
      const double f = gsc / (p + 1e-10);
      for (int64_t c = 0; c < k; ++c) {
        const double sv = double(psd[c]), s = std::fabs(sv), sign = sv > 0 ? 1.0 : sv < 0 ? -1.0 : 0.0;
        pgm[r * k + c] = static_cast<T>(f * w[c] * z[c] / s);
        gs[c] += f * w[c] * (z[c] * z[c] - 1.0) / s * sign;
      }
    }
    T* pgs = grad_sd.data<T>();
    for (int64_t c = 0; c < k; ++c) pgs[c] = static_cast<T>(gs[c]);
  });
}

[[maybe_unused]] const bool head_losses_gmm_bound =
    (gmm_log_pmf_kernel.cpu = cpu_log_pmf, gmm_log_pmf_backward_kernel.cpu = cpu_log_pmf_backward,
     gmm_nll_kernel.cpu = cpu_nll, gmm_nll_backward_kernel.cpu = cpu_nll_backward, true);

}  // namespace
}  // namespace hm

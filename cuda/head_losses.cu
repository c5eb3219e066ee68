// CUDA kernels of the Fourier and GMM heads' losses (ops/head_losses_kernels.h), with the
// formulas of the CPU kernels (ops/cpu/head_losses.cpp, ops/cpu/head_losses_gmm.cpp, which
// state the derivatives). Each pass is one launch over rows, so a training step's loss costs a
// few launches instead of the composed form's tens of small ops. Totals over rows (the NLLs,
// and the stds' gradient, shared by every row) are fixed-order sums: reduce_total for the
// losses, a thread per component adding the rows' partials in order for the stds.
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/head_losses_kernels.h"

namespace hm::cuda {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// -- Fourier density NLL ------------------------------------------------------------------------

// R, I, S and p of one row's Fourier series at t (coefficients a = x[0..n], b = x[n+1..2n+1]),
// the harmonics cos/sin(pi l t) by the CPU's angle-addition recurrence.
struct FourierAt {
  double R, I, S, p;
};
template <class T>
HM_HD FourierAt fourier_at(const T* x, int64_t n, double t) {
  const double c1 = CudaMath::cos(kPi * t), s1 = CudaMath::sin(kPi * t);
  double c = 1.0, s = 0.0, R = 0, I = 0, S = 0;
  for (int64_t l = 0; l <= n; ++l) {
    const double al = static_cast<double>(x[l]), bl = static_cast<double>(x[n + 1 + l]);
    R += al * c + bl * s;
    I += bl * c - al * s;
    S += al * al + bl * bl;
    const double cn = c * c1 - s * s1;
    s = s * c1 + c * s1, c = cn;
  }
  return {R, I, S, (R * R + I * I) / (2.0 * S)};
}

template <class T>
struct FourierNllRow {  // -log(p(t_r) + 1e-10)
  const T *x, *t;
  int64_t n, kk;
  HM_HD double operator()(int64_t r) const {
    return -CudaMath::log(fourier_at(x + r * kk, n, static_cast<double>(t[r])).p + 1e-10);
  }
};

template <Exec E>
void fourier_nll_on(const Tensor& x, const Tensor& t, const Tensor& out) {
  const int device = kernel_device(E, "fourier_nll", {&x, &t, &out});
  const int64_t kk = x.size(-1), rows = x.numel() / kk;
  dispatch_float(x.dtype(), "fourier_nll", [&]<class T>() {
    reduce_total(E, device, rows,
                 FourierNllRow<T>{static_cast<const T*>(x.raw_data()), static_cast<const T*>(t.raw_data()),
                                  kk / 2 - 1, kk},
                 static_cast<double>(rows), static_cast<T*>(out.raw_data()));
  });
}

template <class T>
struct FourierNllBackwardRow {  // a thread per row writes its 2(n+1) gradients
  const T *x, *t, *g;
  T* gx;
  int64_t n, kk, rows;
  HM_HD void operator()(int64_t r) const {
    const T* xr = x + r * kk;
    const double tr = static_cast<double>(t[r]);
    const FourierAt v = fourier_at(xr, n, tr);
    const double gs = -static_cast<double>(g[0]) / static_cast<double>(rows);
    const double f = gs / (v.p + 1e-10), inv_s = 1.0 / v.S;
    const double c1 = CudaMath::cos(kPi * tr), s1 = CudaMath::sin(kPi * tr);
    double c = 1.0, s = 0.0;
    T *ga = gx + r * kk, *gb = ga + n + 1;
    for (int64_t l = 0; l <= n; ++l) {
      ga[l] = static_cast<T>(f * ((v.R * c - v.I * s) - 2.0 * v.p * static_cast<double>(xr[l])) * inv_s);
      gb[l] = static_cast<T>(f * ((v.R * s + v.I * c) - 2.0 * v.p * static_cast<double>(xr[n + 1 + l])) * inv_s);
      const double cn = c * c1 - s * s1;
      s = s * c1 + c * s1, c = cn;
    }
  }
};

template <Exec E>
void fourier_nll_backward_on(const Tensor& x, const Tensor& t, const Tensor& g, const Tensor& gx) {
  const int device = kernel_device(E, "fourier_nll_backward", {&x, &t, &g, &gx});
  const int64_t kk = x.size(-1), rows = x.numel() / kk;
  dispatch_float(x.dtype(), "fourier_nll_backward", [&]<class T>() {
    for_each_index(E, device, rows,
                   FourierNllBackwardRow<T>{static_cast<const T*>(x.raw_data()), static_cast<const T*>(t.raw_data()),
                                            static_cast<const T*>(g.raw_data()), static_cast<T*>(gx.raw_data()),
                                            kk / 2 - 1, kk, rows});
  });
}

// -- GMM binned log-pmf -------------------------------------------------------------------------

// Bin j's centre on [-1, 1] with m bins, in T as the CPU computes it.
template <class T>
HM_HD T bin_centre(int64_t j, int64_t m) {
  return static_cast<T>(-1.0 + static_cast<double>(2 * j + 1) / static_cast<double>(m));
}

template <class T>
struct GmmTerms {  // a thread per (row, component, bin): w = exp(-z^2 / 2) / (s sqrt(2 pi) K)
  const T *mu, *sd;
  T* w;
  int64_t k, m;
  HM_HD void operator()(int64_t i) const {
    const int64_t j = i % m, rc = i / m, c = rc % k;
    const T inv_s = T(1) / sd[c], norm = static_cast<T>(kInvSqrt2Pi / static_cast<double>(k)) * inv_s;
    const T z = (bin_centre<T>(j, m) - mu[rc]) * inv_s;
    w[i] = CudaMath::exp(T(-0.5) * z * z) * norm;
  }
};
// Row r's mixture density d_j = sum_c w (the CPU's order over c) into d (m), returning sum_j d_j.
template <class T>
HM_HD T row_density(const T* w, int64_t r, int64_t k, int64_t m, T* d) {
  T total = 0;
  for (int64_t j = 0; j < m; ++j) {
    T dj = 0;
    for (int64_t c = 0; c < k; ++c) dj += w[(r * k + c) * m + j];
    d[j] = dj;
    total += dj;
  }
  return total;
}

template <class T>
struct GmmLogPmfRow {  // a thread per row: out = log(d / sum d + 1e-5), d first held in out
  const T* w;
  T* out;
  int64_t k, m;
  HM_HD void operator()(int64_t r) const {
    T* o = out + r * m;
    const T inv_total = T(1) / row_density(w, r, k, m, o);
    for (int64_t j = 0; j < m; ++j) o[j] = CudaMath::log(o[j] * inv_total + T(1e-5));
  }
};

template <Exec E>
void gmm_log_pmf_on(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& out) {
  const int device = kernel_device(E, "gmm_log_pmf", {&mu, &sd, &w, &out});
  const int64_t k = mu.size(-1), rows = mu.numel() / k, m = out.size(-1);
  dispatch_float(mu.dtype(), "gmm_log_pmf", [&]<class T>() {
    T* pw = static_cast<T*>(w.raw_data());
    for_each_index(E, device, rows * k * m,
                   GmmTerms<T>{static_cast<const T*>(mu.raw_data()), static_cast<const T*>(sd.raw_data()), pw, k, m});
    for_each_index(E, device, rows, GmmLogPmfRow<T>{pw, static_cast<T*>(out.raw_data()), k, m});
  });
}

template <class T>
struct GmmLogPmfBackwardRow {  // a thread per row: e_j = dL/dd_j, d first held in e
  const T *w, *g;
  T* e;
  int64_t k, m;
  HM_HD void operator()(int64_t r) const {
    T* er = e + r * m;
    const T inv_total = T(1) / row_density(w, r, k, m, er);
    T hy = 0;
    for (int64_t j = 0; j < m; ++j) {
      const T y = er[j] * inv_total;
      er[j] = g[r * m + j] / (y + T(1e-5));
      hy += er[j] * y;
    }
    for (int64_t j = 0; j < m; ++j) er[j] = (er[j] - hy) * inv_total;
  }
};
template <class T>
struct GmmLogPmfBackwardTerm {  // a thread per (row, component): grad_mu and the row's part of grad_sd
  const T *mu, *sd, *w, *e;
  T* gmu;
  double* gs_part;  // (rows, K)
  int64_t k, m;
  HM_HD void operator()(int64_t rc) const {
    const int64_t r = rc / k, c = rc % k;
    const T inv_s = T(1) / sd[c], u = mu[rc];
    const T* wr = w + rc * m;
    T a = 0, b = 0;
    for (int64_t j = 0; j < m; ++j) {
      const T z = (bin_centre<T>(j, m) - u) * inv_s, ew = e[r * m + j] * wr[j];
      a += ew * z, b += ew * (z * z - T(1));
    }
    gmu[rc] = a * inv_s;
    gs_part[rc] = static_cast<double>(b * inv_s);
  }
};
template <class T>
struct StdGradSum {  // a thread per component: the rows' parts in row order
  const double* part;
  T* gsd;
  int64_t k, rows;
  HM_HD void operator()(int64_t c) const {
    double s = 0;
    for (int64_t r = 0; r < rows; ++r) s += part[r * k + c];
    gsd[c] = static_cast<T>(s);
  }
};

template <Exec E>
void gmm_log_pmf_backward_on(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& g, const Tensor& gmu,
                             const Tensor& gsd) {
  const int device = kernel_device(E, "gmm_log_pmf_backward", {&mu, &sd, &w, &g, &gmu, &gsd});
  const int64_t k = mu.size(-1), rows = mu.numel() / k, m = g.size(-1);
  dispatch_float(mu.dtype(), "gmm_log_pmf_backward", [&]<class T>() {
    Tensor e = Tensor::empty({rows, m}, mu.dtype(), mu.device());
    Tensor part = Tensor::empty({rows, k}, DType::Float64, mu.device());
    const T* pw = static_cast<const T*>(w.raw_data());
    T* pe = static_cast<T*>(e.raw_data());
    double* pp = static_cast<double*>(part.raw_data());
    for_each_index(E, device, rows,
                   GmmLogPmfBackwardRow<T>{pw, static_cast<const T*>(g.raw_data()), pe, k, m});
    for_each_index(E, device, rows * k,
                   GmmLogPmfBackwardTerm<T>{static_cast<const T*>(mu.raw_data()), static_cast<const T*>(sd.raw_data()),
                                            pw, pe, static_cast<T*>(gmu.raw_data()), pp, k, m});
    for_each_index(E, device, k, StdGradSum<T>{pp, static_cast<T*>(gsd.raw_data()), k, rows});
  });
}

// -- GMM density NLL ----------------------------------------------------------------------------

// Component c's term at t and its standardised value (s = |sd_c|).
struct GmmAt {
  double w, z;
};
template <class T>
HM_HD GmmAt gmm_at(const T* mu_r, const T* sd, int64_t k, int64_t c, double t) {
  const double s = fabs(static_cast<double>(sd[c])), z = (t - static_cast<double>(mu_r[c])) / s;
  return {CudaMath::exp(-0.5 * z * z) * kInvSqrt2Pi / (s * static_cast<double>(k)), z};
}
template <class T>
HM_HD double gmm_density(const T* mu_r, const T* sd, int64_t k, double t) {
  double p = 0;
  for (int64_t c = 0; c < k; ++c) p += gmm_at(mu_r, sd, k, c, t).w;
  return p;
}

template <class T>
struct GmmNllRow {
  const T *mu, *sd, *t;
  int64_t k;
  HM_HD double operator()(int64_t r) const {
    return -CudaMath::log(gmm_density(mu + r * k, sd, k, static_cast<double>(t[r])) + 1e-10);
  }
};

template <Exec E>
void gmm_nll_on(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& out) {
  const int device = kernel_device(E, "gmm_nll", {&mu, &sd, &t, &out});
  const int64_t k = mu.size(-1), rows = mu.numel() / k;
  dispatch_float(mu.dtype(), "gmm_nll", [&]<class T>() {
    reduce_total(E, device, rows,
                 GmmNllRow<T>{static_cast<const T*>(mu.raw_data()), static_cast<const T*>(sd.raw_data()),
                              static_cast<const T*>(t.raw_data()), k},
                 static_cast<double>(rows), static_cast<T*>(out.raw_data()));
  });
}

template <class T>
struct GmmNllBackwardTerm {  // a thread per (row, component)
  const T *mu, *sd, *t, *g;
  T* gmu;
  double* gs_part;  // (rows, K)
  int64_t k, rows;
  HM_HD void operator()(int64_t rc) const {
    const int64_t r = rc / k, c = rc % k;
    const T* mu_r = mu + r * k;
    const double tr = static_cast<double>(t[r]);
    const double f = -static_cast<double>(g[0]) / static_cast<double>(rows) / (gmm_density(mu_r, sd, k, tr) + 1e-10);
    const GmmAt a = gmm_at(mu_r, sd, k, c, tr);
    const double sv = static_cast<double>(sd[c]), s = fabs(sv), sign = sv > 0 ? 1.0 : sv < 0 ? -1.0 : 0.0;
    gmu[rc] = static_cast<T>(f * a.w * a.z / s);
    gs_part[rc] = f * a.w * (a.z * a.z - 1.0) / s * sign;
  }
};

template <Exec E>
void gmm_nll_backward_on(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& g, const Tensor& gmu,
                         const Tensor& gsd) {
  const int device = kernel_device(E, "gmm_nll_backward", {&mu, &sd, &t, &g, &gmu, &gsd});
  const int64_t k = mu.size(-1), rows = mu.numel() / k;
  dispatch_float(mu.dtype(), "gmm_nll_backward", [&]<class T>() {
    Tensor part = Tensor::empty({rows, k}, DType::Float64, mu.device());
    double* pp = static_cast<double*>(part.raw_data());
    for_each_index(E, device, rows * k,
                   GmmNllBackwardTerm<T>{static_cast<const T*>(mu.raw_data()), static_cast<const T*>(sd.raw_data()),
                                         static_cast<const T*>(t.raw_data()), static_cast<const T*>(g.raw_data()),
                                         static_cast<T*>(gmu.raw_data()), pp, k, rows});
    for_each_index(E, device, k, StdGradSum<T>{pp, static_cast<T*>(gsd.raw_data()), k, rows});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(fourier_nll_kernel, fourier_nll_on<Exec::Device>, fourier_nll_on<Exec::Host>) &&
    bind_cuda(fourier_nll_backward_kernel, fourier_nll_backward_on<Exec::Device>,
              fourier_nll_backward_on<Exec::Host>) &&
    bind_cuda(gmm_log_pmf_kernel, gmm_log_pmf_on<Exec::Device>, gmm_log_pmf_on<Exec::Host>) &&
    bind_cuda(gmm_log_pmf_backward_kernel, gmm_log_pmf_backward_on<Exec::Device>,
              gmm_log_pmf_backward_on<Exec::Host>) &&
    bind_cuda(gmm_nll_kernel, gmm_nll_on<Exec::Device>, gmm_nll_on<Exec::Host>) &&
    bind_cuda(gmm_nll_backward_kernel, gmm_nll_backward_on<Exec::Device>, gmm_nll_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

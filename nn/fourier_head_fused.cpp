// Fused CPU losses of the Fourier and GMM heads (nn/fourier_head_fused.h). Rows are processed
// serially in double precision (a step has ~32 rows; the callers run whole trainings in
// parallel threads). Derivatives, per row:
//
// Regulariser  r = sum_k k^2 |c_k|^2, c_k = sum_l a_l conj(a_{l+k}) (a_l = alpha_l + i beta_l):
//   dr/dalpha_j = sum_k 2 k^2 (Re c_k (alpha_{j+k} + alpha_{j-k}) + Im c_k (beta_{j-k} - beta_{j+k}))
//   dr/dbeta_j  = sum_k 2 k^2 (Re c_k (beta_{j+k} + beta_{j-k})  + Im c_k (alpha_{j+k} - alpha_{j-k}))
//   (terms with an index outside 0..N are zero).
// Fourier density at t: R = sum_l alpha_l cos(pi l t) + beta_l sin(pi l t),
//   I = sum_l beta_l cos - alpha_l sin, S = sum_l alpha_l^2 + beta_l^2, p = (R^2 + I^2) / (2 S):
//   dp/dalpha_l = (R cos_l - I sin_l) / S - 2 p alpha_l / S
//   dp/dbeta_l  = (R sin_l + I cos_l) / S - 2 p beta_l / S
// Mixture component k at b: z = (b - mu_k) / s_k, w = exp(-z^2/2) / (s_k sqrt(2 pi) K):
//   dw/dmu_k = w z / s_k,  dw/ds_k = w (z^2 - 1) / s_k.
// GMM pmf d_j = sum_k w_kj, y = d / D (D = sum_j d_j), out = log(y + 1e-5); with g = dL/dout:
//   h_j = g_j / (y_j + 1e-5),  dL/dd_j = (h_j - sum_i h_i y_i) / D.
#include "nn/fourier_head_fused.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/dispatch.h"
#include "core/error.h"
#include "ops/cpu/vec_math.h"

namespace hm::nn::fused {
namespace {

using Grads = std::vector<Tensor>;
constexpr double kPi = std::numbers::pi;
const double kInvSqrt2Pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);

// All defined, on the CPU, one float dtype (float32/float64).
bool applies(std::initializer_list<const Tensor*> ts) {
  DType dt = (*ts.begin())->dtype();
  for (const Tensor* t : ts)
    if (!t->defined() || t->device() != Device::cpu() || t->dtype() != dt ||
        (dt != DType::Float32 && dt != DType::Float64))
      return false;
  return true;
}

// A contiguous copy (or self) without taping.
Tensor flat(const Tensor& t) {
  NoGradGuard guard;
  return t.contiguous();
}

// The value of a one-element float tensor (an upstream gradient), without item()'s copies.
double scalar_of(const Tensor& g) {
  if (g.dtype() == DType::Float32 && g.device() == Device::cpu()) return *static_cast<const float*>(g.raw_data());
  if (g.dtype() == DType::Float64 && g.device() == Device::cpu()) return *static_cast<const double*>(g.raw_data());
  return scalar_of(g);
}

template <class F>
void float_dispatch(DType dt, F&& f) {
  if (dt == DType::Float32)
    f(float{});
  else
    f(double{});
}

// -- regulariser --------------------------------------------------------------------------------

// Rows up to this N keep their coefficients on the stack.
constexpr int64_t kMaxStackFreq = 64;

// Per row: Re c_k, Im c_k for k = 1..n into re, im (size n + 1, index 0 unused); returns sum k^2 |c_k|^2.
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

}  // namespace

Tensor fourier_regularizer(const Tensor& coeffs, double gamma, int64_t bins, bool code_scaling) {
  if (!applies({&coeffs}) || coeffs.dim() < 1 || coeffs.size(-1) < 2 || coeffs.size(-1) % 2 != 0 || bins < 1 ||
      coeffs.numel() == 0)
    return {};
  const int64_t kk = coeffs.size(-1), n = kk / 2 - 1, rows = coeffs.numel() / kk;
  const double scale = code_scaling ? gamma * 4.0 * kPi * kPi : gamma * 2.0 * kPi * kPi / static_cast<double>(bins);
  Tensor x = flat(coeffs);
  Tensor out = Tensor::empty({}, coeffs.dtype());
  const bool rec = autograd::will_record({coeffs});
  // Re c_k, Im c_k of every row (index k = 0 unused), kept for the backward.
  std::vector<double> re(rows * (n + 1)), im(rows * (n + 1));
  float_dispatch(coeffs.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r)
      total += autocorr_row(px + r * kk, n, re.data() + r * (n + 1), im.data() + r * (n + 1));
    *out.data<T>() = static_cast<T>(scale * total / static_cast<double>(rows));
  });
  if (!rec) return out;
  return autograd::record("fused_fourier_regularizer", out, {coeffs},
                          [sx = autograd::Saved(x), re = std::move(re), im = std::move(im), shape = coeffs.shape(), n,
                           kk, rows, scale](const Tensor& g, const autograd::NeedsGrad&) {
                            const Tensor& xv = sx.get();
                            Tensor gx = Tensor::empty(shape, xv.dtype());
                            const double gs = scalar_of(g) * scale / static_cast<double>(rows);
                            // alpha, beta zero-padded by n on both sides, so a_{j+k} and a_{j-k} need no bounds tests.
                            const int64_t w = 3 * n + 1;
                            std::vector<double> ap(w, 0.0), bp(w, 0.0), ga(n + 1), gb(n + 1);
                            float_dispatch(xv.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              const T* px = xv.data<T>();
                              T* pg = gx.data<T>();
                              for (int64_t r = 0; r < rows; ++r) {
                                const T* x = px + r * kk;
                                for (int64_t j = 0; j <= n; ++j)
                                  ap[n + j] = x[j], bp[n + j] = x[n + 1 + j], ga[j] = gb[j] = 0.0;
                                const double *cr = re.data() + r * (n + 1), *ci = im.data() + r * (n + 1);
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
                                for (int64_t j = 0; j <= n; ++j)
                                  g[j] = static_cast<T>(gs * ga[j]), g[n + 1 + j] = static_cast<T>(gs * gb[j]);
                              }
                            });
                            return Grads{gx};
                          });
}

// -- Fourier density NLL ------------------------------------------------------------------------

namespace {

// cos(pi l t), sin(pi l t) for l = 0..n by the angle-addition recurrence.
void harmonics(double t, int64_t n, double* c, double* s) {
  const double c1 = std::cos(kPi * t), s1 = std::sin(kPi * t);
  c[0] = 1.0, s[0] = 0.0;
  for (int64_t l = 1; l <= n; ++l) c[l] = c[l - 1] * c1 - s[l - 1] * s1, s[l] = s[l - 1] * c1 + c[l - 1] * s1;
}

struct SeriesAt {
  double R, I, S, p;
};

template <class T>
SeriesAt series_at(const T* x, int64_t n, const double* c, const double* s) {
  const T *a = x, *b = x + n + 1;
  double R = 0, I = 0, S = 0;
  for (int64_t l = 0; l <= n; ++l) {
    const double al = a[l], bl = b[l];
    R += al * c[l] + bl * s[l];
    I += bl * c[l] - al * s[l];
    S += al * al + bl * bl;
  }
  return {R, I, S, (R * R + I * I) / (2.0 * S)};
}

}  // namespace

Tensor fourier_nll(const Tensor& coeffs, const Tensor& targets) {
  if (!applies({&coeffs, &targets}) || coeffs.dim() < 1 || coeffs.size(-1) < 2 || coeffs.size(-1) % 2 != 0 ||
      coeffs.numel() == 0)
    return {};
  const int64_t kk = coeffs.size(-1), n = kk / 2 - 1, rows = coeffs.numel() / kk;
  HM_CHECK(targets.numel() == rows && targets.dim() == coeffs.dim() - 1, "fused::fourier_nll",
           "targets must be (...) for coefficients {}, got {}", coeffs.desc(), targets.desc());
  Tensor x = flat(coeffs), t = flat(targets);
  Tensor out = Tensor::empty({}, coeffs.dtype());
  std::vector<double> c(n + 1), s(n + 1);
  float_dispatch(coeffs.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *pt = t.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      harmonics(double(pt[r]), n, c.data(), s.data());
      total -= std::log(series_at(px + r * kk, n, c.data(), s.data()).p + 1e-10);
    }
    *out.data<T>() = static_cast<T>(total / static_cast<double>(rows));
  });
  const bool rec = autograd::will_record({coeffs});
  return autograd::record(
      "fused_fourier_nll", out, {coeffs},
      [sx = rec ? autograd::Saved(x) : autograd::Saved(), st = rec ? autograd::Saved(t) : autograd::Saved(),
       shape = coeffs.shape(), n, kk, rows](const Tensor& g, const autograd::NeedsGrad&) {
        const Tensor &xv = sx.get(), &tv = st.get();
        Tensor gx = Tensor::empty(shape, xv.dtype());
        const double gs = -scalar_of(g) / static_cast<double>(rows);
        std::vector<double> c(n + 1), s(n + 1);
        float_dispatch(xv.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T *px = xv.data<T>(), *pt = tv.data<T>();
          T* pg = gx.data<T>();
          for (int64_t r = 0; r < rows; ++r) {
            const T* x = px + r * kk;
            harmonics(double(pt[r]), n, c.data(), s.data());
            const SeriesAt v = series_at(x, n, c.data(), s.data());
            const double f = gs / (v.p + 1e-10), inv_s = 1.0 / v.S;
            const T *a = x, *b = x + n + 1;
            T *ga = pg + r * kk, *gb = ga + n + 1;
            for (int64_t l = 0; l <= n; ++l) {
              ga[l] = static_cast<T>(f * ((v.R * c[l] - v.I * s[l]) - 2.0 * v.p * double(a[l])) * inv_s);
              gb[l] = static_cast<T>(f * ((v.R * s[l] + v.I * c[l]) - 2.0 * v.p * double(b[l])) * inv_s);
            }
          }
        });
        return Grads{gx};
      });
}

// -- GMM ----------------------------------------------------------------------------------------

namespace {

// exp and log: vectorisable polynomial code for float32 (ops/cpu/vec_math.h), libm for float64.
HM_VEC_INLINE float exp_t(float x) { return vm::exp(x); }
HM_VEC_INLINE double exp_t(double x) { return std::exp(x); }
HM_VEC_INLINE float log_t(float x) { return vm::log(x); }
HM_VEC_INLINE double log_t(double x) { return std::log(x); }

}  // namespace

Tensor gmm_log_pmf(const Tensor& means, const Tensor& stds, int64_t bins) {
  if (!applies({&means, &stds}) || means.dim() < 1 || stds.dim() != 1 || stds.size(0) != means.size(-1) || bins < 1 ||
      means.numel() == 0)
    return {};
  const int64_t k = means.size(-1), rows = means.numel() / k, m = bins;
  Tensor mu = flat(means), sd = flat(stds);
  Shape out_shape = means.shape();
  out_shape.back() = m;
  Tensor out = Tensor::empty(out_shape, means.dtype());
  Tensor w = Tensor::empty({rows, k, m}, means.dtype());  // every component's term w_kj, for the backward
  float_dispatch(means.dtype(), [&](auto tag) {
    using T = decltype(tag);
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
  const bool rec = autograd::will_record({means, stds});
  if (!rec) return out;
  return autograd::record("fused_gmm_log_pmf", out, {means, stds},
                          [smu = autograd::Saved(mu), ssd = autograd::Saved(sd), w, shape = means.shape(), k, rows, m](
                              const Tensor& g, const autograd::NeedsGrad& needs) {
                            const Tensor &muv = smu.get(), &sdv = ssd.get();
                            Tensor gc = flat(g);
                            Tensor gmu = Tensor::empty(shape, muv.dtype()), gsd = Tensor::empty({k}, sdv.dtype());
                            float_dispatch(muv.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              const T *pmu = muv.data<T>(), *psd = sdv.data<T>(), *pg = gc.data<T>(), *pw = w.data<T>();
                              T* pgm = gmu.data<T>();
                              std::vector<T> centres(m), d(m), e(m);
                              std::vector<double> gs(k, 0.0);
                              for (int64_t j = 0; j < m; ++j)
                                centres[j] = static_cast<T>(-1.0 + static_cast<double>(2 * j + 1) / m);
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
                              T* pgs = gsd.data<T>();
                              for (int64_t c = 0; c < k; ++c) pgs[c] = static_cast<T>(gs[c]);
                            });
                            return Grads{needs[0] ? gmu : Tensor(), needs[1] ? gsd : Tensor()};
                          });
}

Tensor gmm_nll(const Tensor& means, const Tensor& stds, const Tensor& targets) {
  if (!applies({&means, &stds, &targets}) || means.dim() < 1 || stds.dim() != 1 || stds.size(0) != means.size(-1) ||
      means.numel() == 0)
    return {};
  const int64_t k = means.size(-1), rows = means.numel() / k;
  HM_CHECK(targets.numel() == rows && targets.dim() == means.dim() - 1, "fused::gmm_nll",
           "targets must be (...) for means {}, got {}", means.desc(), targets.desc());
  Tensor mu = flat(means), sd = flat(stds), t = flat(targets);
  Tensor out = Tensor::empty({}, means.dtype());
  // The density at t of one row; with w, z: each component's term and standardised value.
  auto density = [k](auto* pmu, auto* psd, double t, double* w, double* z) {
    double p = 0;
    for (int64_t c = 0; c < k; ++c) {
      const double s = std::fabs(double(psd[c])), zz = (t - double(pmu[c])) / s;
      const double ww = std::exp(-0.5 * zz * zz) * kInvSqrt2Pi / (s * static_cast<double>(k));
      if (w) w[c] = ww, z[c] = zz;
      p += ww;
    }
    return p;
  };
  float_dispatch(means.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pmu = mu.data<T>(), *psd = sd.data<T>(), *pt = t.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r)
      total -= std::log(density(pmu + r * k, psd, double(pt[r]), nullptr, nullptr) + 1e-10);
    *out.data<T>() = static_cast<T>(total / static_cast<double>(rows));
  });
  const bool rec = autograd::will_record({means, stds});
  return autograd::record(
      "fused_gmm_nll", out, {means, stds},
      [smu = rec ? autograd::Saved(mu) : autograd::Saved(), ssd = rec ? autograd::Saved(sd) : autograd::Saved(),
       st = rec ? autograd::Saved(t) : autograd::Saved(), shape = means.shape(), k, rows,
       density](const Tensor& g, const autograd::NeedsGrad& needs) {
        const Tensor &muv = smu.get(), &sdv = ssd.get(), &tv = st.get();
        Tensor gmu = Tensor::empty(shape, muv.dtype()), gsd = Tensor::empty({k}, sdv.dtype());
        const double gsc = -scalar_of(g) / static_cast<double>(rows);
        std::vector<double> w(k), z(k), gs(k, 0.0);
        float_dispatch(muv.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T *pmu = muv.data<T>(), *psd = sdv.data<T>(), *pt = tv.data<T>();
          T* pgm = gmu.data<T>();
          for (int64_t r = 0; r < rows; ++r) {
            const double p = density(pmu + r * k, psd, double(pt[r]), w.data(), z.data());
            const double f = gsc / (p + 1e-10);
            for (int64_t c = 0; c < k; ++c) {
              const double sv = double(psd[c]), s = std::fabs(sv), sign = sv > 0 ? 1.0 : sv < 0 ? -1.0 : 0.0;
              pgm[r * k + c] = static_cast<T>(f * w[c] * z[c] / s);
              gs[c] += f * w[c] * (z[c] * z[c] - 1.0) / s * sign;
            }
          }
          T* pgs = gsd.data<T>();
          for (int64_t c = 0; c < k; ++c) pgs[c] = static_cast<T>(gs[c]);
        });
        return Grads{needs[0] ? gmu : Tensor(), needs[1] ? gsd : Tensor()};
      });
}

}  // namespace hm::nn::fused

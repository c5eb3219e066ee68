// CPU kernels of the Fourier head's density NLL (ops/head_losses_kernels.h).
// Rows are processed serially in double precision (a step has ~32 rows; the toy study runs
// whole trainings in parallel threads). Derivatives, per row:
//
// Fourier density at t: R = sum_l alpha_l cos(pi l t) + beta_l sin(pi l t),
//   I = sum_l beta_l cos - alpha_l sin, S = sum_l alpha_l^2 + beta_l^2, p = (R^2 + I^2) / (2 S):
//   dp/dalpha_l = (R cos_l - I sin_l) / S - 2 p alpha_l / S
//   dp/dbeta_l  = (R sin_l + I cos_l) / S - 2 p beta_l / S
#include <cmath>
#include <numbers>
#include <vector>

#include "harmonic/ops/head_losses_kernels.h"

namespace hm {
namespace {

constexpr double kPi = std::numbers::pi;

// -- Fourier density NLL ------------------------------------------------------------------------

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

void cpu_nll(const Tensor& x, const Tensor& t, const Tensor& out) {
  const int64_t kk = x.size(-1), n = kk / 2 - 1, rows = x.numel() / kk;
  std::vector<double> c(n + 1), s(n + 1);
  dispatch_float(x.dtype(), "fourier_nll", [&]<class T>() {
    const T *px = x.data<T>(), *pt = t.data<T>();
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      harmonics(double(pt[r]), n, c.data(), s.data());
      total -= std::log(series_at(px + r * kk, n, c.data(), s.data()).p + 1e-10);
    }
    *out.data<T>() = static_cast<T>(total / static_cast<double>(rows));
  });
}

void cpu_nll_backward(const Tensor& x, const Tensor& t, const Tensor& grad_out, const Tensor& grad_x) {
  const int64_t kk = x.size(-1), n = kk / 2 - 1, rows = x.numel() / kk;
  const double gs = -head_loss_grad_value(grad_out) / static_cast<double>(rows);
  std::vector<double> c(n + 1), s(n + 1);
  dispatch_float(x.dtype(), "fourier_nll_backward", [&]<class T>() {
    const T *px = x.data<T>(), *pt = t.data<T>();
    T* pg = grad_x.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = px + r * kk;
      harmonics(double(pt[r]), n, c.data(), s.data());
      const SeriesAt v = series_at(xr, n, c.data(), s.data());
      const double f = gs / (v.p + 1e-10), inv_s = 1.0 / v.S;
      const T *a = xr, *b = xr + n + 1;
      T *ga = pg + r * kk, *gb = ga + n + 1;
      for (int64_t l = 0; l <= n; ++l) {
        ga[l] = static_cast<T>(f * ((v.R * c[l] - v.I * s[l]) - 2.0 * v.p * double(a[l])) * inv_s);
        gb[l] = static_cast<T>(f * ((v.R * s[l] + v.I * c[l]) - 2.0 * v.p * double(b[l])) * inv_s);
      }
    }
  });
}

[[maybe_unused]] const bool head_losses_bound =
    (fourier_nll_kernel.cpu = cpu_nll, fourier_nll_backward_kernel.cpu = cpu_nll_backward, true);

}  // namespace
}  // namespace hm

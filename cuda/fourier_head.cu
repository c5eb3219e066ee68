// CUDA Fourier head kernels; the CPU kernels (ops/cpu/fourier_head.cpp) are the reference the
// tests hold these against.
// Log-pmf rows (ops/fourier_head_functors.h, the CPU's formula): a group of lanes per row (a
// warp, or a block for rows of 1024+ half-grid bins, cuda/device/rows.cuh), the row sums as lane
// partials, so a few thousand rows of thousands of bins fill the device, where a thread per row
// would leave most of it idle.
// The regulariser (Gillman et al., "Fourier Head", the smoothness regulariser): forward a thread
// per (row, k) computing c_k, its weighted |c_k|^2 summed by reduce_total (a fixed-order double
// total, no atomics); backward a thread per (row, j) writing dr/dalpha_j and dr/dbeta_j, the
// CPU's formula and order over k (ops/cpu/fourier_head.cpp states it).
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/fourier_head_functors.h"
#include "harmonic/ops/fourier_head_kernels.h"

namespace hm::cuda {
namespace {

// Lane l of a row takes the half-grid bins j = l, l + lanes, ... and writes bin j
// and its mirror m-1-j.

// Lane l's part of Q = sum_j q_j over a row a (4h) of z: a bin and its mirror, P each.
template <class T>
HM_HD T lane_power(const T* a, int64_t h, int64_t pairs, int lane, int lanes) {
  T s = 0;
  for (int64_t j = lane; j < h; j += lanes) {
    const T p = fourier::pair_power(a[j], a[h + j], a[2 * h + j], a[3 * h + j]);
    s += j < pairs ? T(2) * p : p;  // the middle bin's D is 0
  }
  return s;
}
template <class T>
struct LogPmfLanes {  // z (rows, 4h) -> out (rows, m); part1: Q = sum_j q_j
  using Acc = T;
  using Op1 = AddOp;
  const T* z;
  T* out;
  int64_t m, h, pairs;
  HM_HD T part1(int64_t r, int lane, int lanes) const { return lane_power(z + r * 4 * h, h, pairs, lane, lanes); }
  HM_HD T part2(int64_t, int, int, T) const { return T(0); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T total, T, T) const {
    const T* a = z + r * 4 * h;
    T* o = out + r * m;
    const T inv = T(1) / total, eps = T(fourier::kPmfEps);
    for (int64_t j = lane; j < h; j += lanes) {
      const T ac = a[j], as = a[h + j], bc = a[2 * h + j], bs = a[3 * h + j];
      const T p = fourier::pair_power(ac, as, bc, bs), d = fourier::pair_skew(ac, as, bc, bs);
      o[j] = CudaMath::log((p + d) * inv + eps);
      if (j < pairs) o[m - 1 - j] = CudaMath::log((p - d) * inv + eps);
    }
  }
};

// Backward: part1 Q, part2 sum_k h_k y_k (h_k = g_k / (y_k + eps)), then dL/dz per bin pair.
template <class T>
struct LogPmfBackwardLanes {  // z, gz (rows, 4h), g (rows, m)
  using Acc = T;
  using Op1 = AddOp;
  const T *z, *g;
  T* gz;
  int64_t m, h, pairs;
  HM_HD T part1(int64_t r, int lane, int lanes) const { return lane_power(z + r * 4 * h, h, pairs, lane, lanes); }
  // y and h of bin j (0) and its mirror (1; zero for the middle bin).
  HM_HD void bin_terms(int64_t r, int64_t j, T inv, T& y0, T& y1, T& h0, T& h1) const {
    const T* a = z + r * 4 * h;
    const T* gr = g + r * m;
    const T ac = a[j], as = a[h + j], bc = a[2 * h + j], bs = a[3 * h + j];
    const T p = fourier::pair_power(ac, as, bc, bs), d = fourier::pair_skew(ac, as, bc, bs);
    const T eps = T(fourier::kPmfEps);
    y0 = (p + d) * inv, y1 = (p - d) * inv;
    h0 = gr[j] / (y0 + eps);
    h1 = j < pairs ? gr[m - 1 - j] / (y1 + eps) : T(0);
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T total) const {
    const T inv = T(1) / total;
    T s = 0;
    for (int64_t j = lane; j < h; j += lanes) {
      T y0, y1, h0, h1;
      bin_terms(r, j, inv, y0, y1, h0, h1);
      s += h0 * y0 + h1 * y1;
    }
    return s;
  }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T total, T hy, T) const {
    const T* a = z + r * 4 * h;
    T* o = gz + r * 4 * h;
    const T inv = T(1) / total;
    for (int64_t j = lane; j < h; j += lanes) {
      T y0, y1, h0, h1;
      bin_terms(r, j, inv, y0, y1, h0, h1);
      const T w = (h0 - hy) * inv, v = j < pairs ? (h1 - hy) * inv : T(0);
      fourier::pair_grad(a[j], a[h + j], a[2 * h + j], a[3 * h + j], w, v, o[j], o[h + j], o[2 * h + j], o[3 * h + j]);
    }
  }
};

template <Exec E>
void log_pmf_on(const Tensor& z, const Tensor& out) {
  const int device = kernel_device(E, "fourier_head_log_pmf", {&z, &out});
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    run_rows(E, device,
             LogPmfLanes<T>{static_cast<const T*>(z.raw_data()), static_cast<T*>(out.raw_data()), m, zw / 4, m / 2},
             rows, zw / 4);
  });
}

template <Exec E>
void log_pmf_backward_on(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z) {
  const int device = kernel_device(E, "fourier_head_log_pmf_backward", {&z, &grad_out, &grad_z});
  const int64_t m = grad_out.size(-1), rows = m ? grad_out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf_backward", [&]<class T>() {
    const T* zp = static_cast<const T*>(z.raw_data());
    const T* gp = static_cast<const T*>(grad_out.raw_data());
    T* gzp = static_cast<T*>(grad_z.raw_data());
    run_rows(E, device, LogPmfBackwardLanes<T>{zp, gp, gzp, m, zw / 4, m / 2}, rows, zw / 4);
  });
}

// -- regulariser --------------------------------------------------------------------------------

// Term p = (row, k - 1) of the forward, k = 1..N: c_k = sum_l a_l conj(a_{l+k}) of the row in
// double (stored in corr for the backward) and scale k^2 |c_k|^2.
template <class T>
struct RegularizerTerm {
  const T* x;
  double* corr;
  int64_t n;  // N: rows hold 2(N+1) values, [alpha_0..alpha_N | beta_0..beta_N]
  double scale;
  HM_HD double operator()(int64_t p) const {
    const int64_t r = p / n, k = p - r * n + 1, w = 2 * (n + 1);
    const T *a = x + r * w, *b = a + n + 1;
    double cr = 0, ci = 0;
    for (int64_t l = 0; l <= n - k; ++l) {
      const double al = a[l], ak = a[l + k], bl = b[l], bk = b[l + k];
      cr += al * ak + bl * bk;
      ci += bl * ak - al * bk;
    }
    corr[r * w + k] = cr, corr[r * w + n + 1 + k] = ci;
    return scale * (static_cast<double>(k * k) * (cr * cr + ci * ci));
  }
};

// Element p = (row, j) of the backward, j = 0..N: dL/dalpha_j and dL/dbeta_j, with
// g (0-d, read on the device) * scale / rows as the CPU kernel's factor.
template <class T>
struct RegularizerGrad {
  const T* x;
  const double* corr;
  const T* g;
  T* gx;
  int64_t n, rows;
  double scale;
  HM_HD void operator()(int64_t p) const {
    const int64_t r = p / (n + 1), j = p - r * (n + 1), w = 2 * (n + 1);
    const T *a = x + r * w, *b = a + n + 1;
    const double *cr = corr + r * w, *ci = cr + n + 1;
    double ga = 0, gb = 0;
    for (int64_t k = 1; k <= n; ++k) {
      const double wr = 2.0 * static_cast<double>(k * k) * cr[k], wi = 2.0 * static_cast<double>(k * k) * ci[k];
      const bool up = j + k <= n, down = j >= k;  // indices outside 0..N contribute zero
      const double ap = up ? double(a[j + k]) : 0.0, am = down ? double(a[j - k]) : 0.0;
      const double bp = up ? double(b[j + k]) : 0.0, bm = down ? double(b[j - k]) : 0.0;
      ga += wr * (ap + am) + wi * (bm - bp);
      gb += wr * (bp + bm) + wi * (ap - am);
    }
    const double gs = static_cast<double>(g[0]) * scale / static_cast<double>(rows);
    gx[r * w + j] = static_cast<T>(gs * ga), gx[r * w + n + 1 + j] = static_cast<T>(gs * gb);
  }
};

template <Exec E>
void regularizer_on(const Tensor& x, double scale, const Tensor& corr, const Tensor& out) {
  const int device = kernel_device(E, "fourier_regularizer", {&x, &corr, &out});
  const int64_t w = x.size(-1), n = w / 2 - 1, rows = x.numel() / w;
  dispatch_float(x.dtype(), "fourier_regularizer", [&]<class T>() {
    const RegularizerTerm<T> term{static_cast<const T*>(x.raw_data()), static_cast<double*>(corr.raw_data()), n, scale};
    // N = 0 has no terms: the total is 0, as on the CPU.
    reduce_total(E, device, rows * n, term, static_cast<double>(rows), static_cast<T*>(out.raw_data()));
  });
}

template <Exec E>
void regularizer_backward_on(const Tensor& x, const Tensor& corr, const Tensor& grad_out, double scale,
                             const Tensor& grad_x) {
  const int device = kernel_device(E, "fourier_regularizer_backward", {&x, &corr, &grad_out, &grad_x});
  const int64_t w = x.size(-1), n = w / 2 - 1, rows = x.numel() / w;
  check(grad_out.dtype() == x.dtype(), "fourier_regularizer_backward",
        "the upstream gradient's dtype {} differs from the coefficients' {}", dtype_name(grad_out.dtype()),
        dtype_name(x.dtype()));
  dispatch_float(x.dtype(), "fourier_regularizer_backward", [&]<class T>() {
    for_each_index(E, device, rows * (n + 1),
                   RegularizerGrad<T>{static_cast<const T*>(x.raw_data()), static_cast<const double*>(corr.raw_data()),
                                      static_cast<const T*>(grad_out.raw_data()), static_cast<T*>(grad_x.raw_data()),
                                      n, rows, scale});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(fourier_log_pmf_kernel, log_pmf_on<Exec::Device>, log_pmf_on<Exec::Host>) &&
    bind_cuda(fourier_log_pmf_backward_kernel, log_pmf_backward_on<Exec::Device>, log_pmf_backward_on<Exec::Host>) &&
    bind_cuda(fourier_regularizer_kernel, regularizer_on<Exec::Device>, regularizer_on<Exec::Host>) &&
    bind_cuda(fourier_regularizer_backward_kernel, regularizer_backward_on<Exec::Device>,
              regularizer_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

// CUDA Fourier head log-pmf row kernels (ops/fourier_head_functors.h, the CPU's formula): a group
// of lanes per row (a warp, or a block for rows of 1024+ half-grid bins, cuda/device/rows.cuh), the row
// sums as lane partials, so a few thousand rows of thousands of bins fill the device, where a
// thread per row would leave most of it idle. The CPU kernel (ops/cpu/fourier_head.cpp) is the
// reference the tests hold these against.
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

[[maybe_unused]] const bool bound =
    bind_cuda(fourier_log_pmf_kernel, log_pmf_on<Exec::Device>, log_pmf_on<Exec::Host>) &&
    bind_cuda(fourier_log_pmf_backward_kernel, log_pmf_backward_on<Exec::Device>, log_pmf_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

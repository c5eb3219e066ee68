// CUDA Fourier head log-pmf row kernels (the formulas of ops/cpu/fourier_head.cpp): one
// thread per row of z (rows, 4h), the row's bins in the CPU's order. The rows are short
// (m is a few hundred bins at most) and numerous (batch x time), so a thread per row keeps
// the summation order of the CPU and needs no cross-thread reduction.
#include "cuda/runtime/emulation.h"
#include "cuda/launch.cuh"
#include "cuda/math.cuh"
#include "ops/fourier_head_kernels.h"

namespace hm::cuda {
namespace {

constexpr double kPmfEps = 1e-5;  // as ops/cpu/fourier_head.cpp

template <class T>
struct LogPmfRow {  // z (rows, zw), out (rows, m)
  const T* z;
  T* out;
  int64_t m, zw;
  HM_HD void operator()(int64_t r) const {
    const int64_t h = (m + 1) / 2, pairs = m / 2;
    const T *ac = z + r * zw, *as = ac + h, *bc = ac + 2 * h, *bs = ac + 3 * h;
    T* o = out + r * m;
    T total = 0;
    for (int64_t j = 0; j < pairs; ++j) {
      const T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
      const T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
      o[j] = p + d;
      o[m - 1 - j] = p - d;
      total += T(2) * p;
    }
    if (h > pairs) {  // odd m: the middle bin
      const int64_t j = pairs;
      const T re = ac[j] + bs[j], im = bc[j] - as[j];
      o[j] = re * re + im * im;
      total += o[j];
    }
    const T inv = T(1) / total;
    for (int64_t j = 0; j < m; ++j) o[j] = CudaMath::log(o[j] * inv + T(kPmfEps));
  }
};

template <class T>
struct LogPmfBackwardRow {  // z, gz (rows, zw), g (rows, m)
  const T *z, *g;
  T* gz;
  int64_t m, zw;
  HM_HD void operator()(int64_t r) const {
    const int64_t h = (m + 1) / 2, pairs = m / 2;
    const T *ac = z + r * zw, *as = ac + h, *bc = ac + 2 * h, *bs = ac + 3 * h;
    const T* gr = g + r * m;
    T *gac = gz + r * zw, *gas = gac + h, *gbc = gac + 2 * h, *gbs = gac + 3 * h;
    const T eps = T(kPmfEps);
    T total = 0;
    for (int64_t j = 0; j < h; ++j) {
      const T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
      total += j < pairs ? T(2) * p : p;
    }
    const T inv = T(1) / total;
    T hy = 0;
    for (int64_t j = 0; j < h; ++j) {  // gac / gas hold h_j / h_mirror for now
      const T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
      const T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
      const T y0 = (p + d) * inv, y1 = (p - d) * inv;
      const T h0 = gr[j] / (y0 + eps);
      const T h1 = j < pairs ? gr[m - 1 - j] / (y1 + eps) : T(0);
      gac[j] = h0;
      gas[j] = h1;
      hy += h0 * y0 + h1 * y1;
    }
    for (int64_t j = 0; j < h; ++j) {
      const T w = (gac[j] - hy) * inv;
      const T v = j < pairs ? (gas[j] - hy) * inv : T(0);
      const T sum = T(2) * (w + v), dif = T(2) * (w - v);
      const T a_c = ac[j], a_s = as[j], b_c = bc[j], b_s = bs[j];
      gac[j] = a_c * sum + b_s * dif;
      gbs[j] = b_s * sum + a_c * dif;
      gbc[j] = b_c * sum - a_s * dif;
      gas[j] = a_s * sum - b_c * dif;
    }
  }
};

template <Exec E>
void log_pmf_on(const Tensor& z, const Tensor& out) {
  const int device = kernel_device(E, "fourier_head_log_pmf", {&z, &out});
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    for_each_index(E, device, rows,
                   LogPmfRow<T>{static_cast<const T*>(z.raw_data()), static_cast<T*>(out.raw_data()), m, zw});
  });
}

template <Exec E>
void log_pmf_backward_on(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z) {
  const int device = kernel_device(E, "fourier_head_log_pmf_backward", {&z, &grad_out, &grad_z});
  const int64_t m = grad_out.size(-1), rows = m ? grad_out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf_backward", [&]<class T>() {
    for_each_index(E, device, rows,
                   LogPmfBackwardRow<T>{static_cast<const T*>(z.raw_data()), static_cast<const T*>(grad_out.raw_data()),
                                        static_cast<T*>(grad_z.raw_data()), m, zw});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(fourier_log_pmf_kernel, log_pmf_on<Exec::Device>, log_pmf_on<Exec::Host>) &&
    bind_cuda(fourier_log_pmf_backward_kernel, log_pmf_backward_on<Exec::Device>, log_pmf_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda

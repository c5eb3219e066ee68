// CPU row kernels of the Fourier head log-pmf (see ops/fourier_head.cpp for the math).
// Each row is independent: one pass builds q = R^2 + I^2 and its sum, one writes the output.
#include <vector>

#include "core/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/fourier_kernels.h"

namespace hm {
namespace {

constexpr double kPmfEps = 1e-5;

template <class T>
void log_pmf_row(const T* z, T* out, int64_t m) {  // z (2m), out (m)
  const T* re = z;
  const T* im = z + m;
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < m; ++j) {
    T q = re[j] * re[j] + im[j] * im[j];
    out[j] = q;
    total += q;
  }
  const T inv = T(1) / total;
  const T eps = T(kPmfEps);
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) out[j] = CpuMath::log(out[j] * inv + eps);
}

// dL/dq_j = (h_j - sum_k h_k y_k) / Q with h_j = g_j / (y_j + eps); dL/dR_j = 2 R_j dL/dq_j.
template <class T>
void log_pmf_backward_row(const T* z, const T* g, T* gz, int64_t m) {  // z (2m), g (m), gz (2m)
  const T* re = z;
  const T* im = z + m;
  T* gre = gz;
  T* gim = gz + m;
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < m; ++j) total += re[j] * re[j] + im[j] * im[j];
  const T inv = T(1) / total;
  const T eps = T(kPmfEps);
  T hy = 0;
  // gre holds h_j for now.
#pragma omp simd reduction(+ : hy)
  for (int64_t j = 0; j < m; ++j) {
    T y = (re[j] * re[j] + im[j] * im[j]) * inv;
    T h = g[j] / (y + eps);
    gre[j] = h;
    hy += h * y;
  }
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) {
    T dq = T(2) * (gre[j] - hy) * inv;
    gre[j] = dq * re[j];
    gim[j] = dq * im[j];
  }
}

void cpu_log_pmf(const Tensor& z, const Tensor& out) {
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0;
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    const T* pz = z.data<T>();
    T* po = out.data<T>();
    parallel_for(rows, 8 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_row(pz + r * 2 * m, po + r * m, m);
    });
  });
}

void cpu_log_pmf_backward(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z) {
  const int64_t m = grad_out.size(-1), rows = m ? grad_out.numel() / m : 0;
  dispatch_float(z.dtype(), "fourier_head_log_pmf_backward", [&]<class T>() {
    const T* pz = z.data<T>();
    const T* pg = grad_out.data<T>();
    T* pd = grad_z.data<T>();
    parallel_for(rows, 12 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_backward_row(pz + r * 2 * m, pg + r * m, pd + r * 2 * m, m);
    });
  });
}

[[maybe_unused]] const bool bound =
    (fourier_log_pmf_kernel.cpu = cpu_log_pmf, fourier_log_pmf_backward_kernel.cpu = cpu_log_pmf_backward, true);

}  // namespace
}  // namespace hm

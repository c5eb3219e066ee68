// CUDA Fourier head log-pmf row kernels (ops/fourier_head_functors.h, the CPU's formula): one
// thread per row of z (rows, 4h), the row's bins in the CPU's order. The rows are short
// (m is a few hundred bins at most) and numerous (batch x time), so a thread per row needs no
// cross-thread reduction.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/launch.cuh"
#include "harmonic/cuda/math.cuh"
#include "harmonic/ops/fourier_head_functors.h"
#include "harmonic/ops/fourier_head_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct LogPmfRow {  // z (rows, zw), out (rows, m)
  const T* z;
  T* out;
  int64_t m, zw;
  HM_HD void operator()(int64_t r) const { fourier::log_pmf_row<CudaMath>(z + r * zw, out + r * m, m); }
};

template <class T>
struct LogPmfBackwardRow {  // z, gz (rows, zw), g (rows, m)
  const T *z, *g;
  T* gz;
  int64_t m, zw;
  HM_HD void operator()(int64_t r) const { fourier::log_pmf_backward_row(z + r * zw, g + r * m, gz + r * zw, m); }
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

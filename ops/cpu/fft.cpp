// CPU bodies of the FFT kernel slots (ops/fft_kernels.h): the row transforms of
// ops/cpu/fft_plan.h, OpenMP over rows.
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/fft_plan.h"
#include "harmonic/ops/fft_kernels.h"

namespace hm {
namespace {

int64_t rows_of(const Tensor& t, int64_t inner) { return inner ? t.numel() / inner : 0; }

void cpu_rfft(const Tensor& x, int64_t n, double scale, const Tensor& out) {
  dispatch_float(x.dtype(), "rfft", [&]<class T>() {
    cpu_fft::rfft_rows<T>(x.data<T>(), out.data<T>(), rows_of(x, n), n, static_cast<T>(scale));
  });
}

void cpu_irfft(const Tensor& spec, int64_t n, double scale, const Tensor& out) {
  dispatch_float(spec.dtype(), "irfft", [&]<class T>() {
    cpu_fft::irfft_rows<T>(spec.data<T>(), out.data<T>(), rows_of(out, n), n, static_cast<T>(scale));
  });
}

void cpu_fft(const Tensor& x, int64_t n, bool inverse, double scale, const Tensor& out) {
  dispatch_float(x.dtype(), "fft", [&]<class T>() {
    cpu_fft::fft_rows<T>(x.data<T>(), out.data<T>(), rows_of(x, 2 * n), n, inverse, static_cast<T>(scale));
  });
}

[[maybe_unused]] const bool fft_bound =
    (rfft_kernel.cpu = cpu_rfft, irfft_kernel.cpu = cpu_irfft, fft_kernel.cpu = cpu_fft, true);

}  // namespace
}  // namespace hm

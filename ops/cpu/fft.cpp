// CPU bodies of the FFT kernel slots (ops/fft_kernels.h): the row transforms of
// ops/cpu/fft_plan.h and the stft framing functors of ops/fft_functors.h, OpenMP over rows.
#include "core/parallel.h"
#include "ops/cpu/fft_plan.h"
#include "ops/fft_functors.h"
#include "ops/fft_kernels.h"

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

// Runs an element functor over [0, count) in parallel.
template <class F>
void for_each_element(int64_t count, int64_t cost, const F& f) {
  parallel_for(count, cost, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) f(i);
  });
}

void cpu_frames(const Tensor& x, const Tensor& window, const FrameArgs& args, const Tensor& out) {
  dispatch_float(x.dtype(), "stft", [&]<class T>() {
    for_each_element(out.numel(), 1, FrameGather<T>{x.data<T>(), window.data<T>(), out.data<T>(), args});
  });
}

void cpu_overlap_add(const Tensor& g, const Tensor& window, const FrameArgs& args, const Tensor& dx) {
  dispatch_float(g.dtype(), "stft", [&]<class T>() {
    const int64_t per_sample = 3 * (args.n_fft / args.hop + 1);
    for_each_element(dx.numel(), per_sample, FrameScatter<T>{g.data<T>(), window.data<T>(), dx.data<T>(), args});
  });
}

[[maybe_unused]] const bool bound = (rfft_kernel.cpu = cpu_rfft, irfft_kernel.cpu = cpu_irfft,
                                     fft_kernel.cpu = cpu_fft, frame_kernel.cpu = cpu_frames,
                                     overlap_add_kernel.cpu = cpu_overlap_add, true);

}  // namespace
}  // namespace hm

// CPU bodies of the stft framing slots (ops/stft_kernels.h): row loops computing what the
// functors of ops/fft_functors.h compute per element on CUDA, OpenMP over rows.
#include <algorithm>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/fft_functors.h"
#include "harmonic/ops/stft_kernels.h"

namespace hm {
namespace {

int64_t rows_of(const Tensor& t, int64_t inner) { return inner ? t.numel() / inner : 0; }

// Framing row by row rather than through the per-element functors (whose index divisions
// dominate on the CPU): frames inside the signal are a vectorised windowed copy, only the
// edge frames go through reflect_index. Same values as FrameGather.
template <class T>
void frames_rows(const T* x, const T* w, T* out, const FrameArgs& a, int64_t rows) {
  parallel_for(rows * a.frames, a.n_fft, [&](int64_t rf0, int64_t rf1) {
    for (int64_t rf = rf0; rf < rf1; ++rf) {
      const int64_t r = rf / a.frames, f = rf % a.frames, start = f * a.hop - a.pad;
      const T* xr = x + r * a.length;
      T* o = out + rf * a.n_fft;
      if (start >= 0 && start + a.n_fft <= a.length) {
#pragma omp simd
        for (int64_t i = 0; i < a.n_fft; ++i) o[i] = xr[start + i] * w[i];
      } else {
        for (int64_t i = 0; i < a.n_fft; ++i) o[i] = xr[reflect_index(f * a.hop + i, a.pad, a.length)] * w[i];
      }
    }
  });
}

// The adjoint per row: overlap-add the windowed frame gradients into the padded signal (each
// thread owns whole rows, so no races), then fold the padding back through the reflection.
// The same sums as FrameScatter, accumulated in frame order.
template <class T>
void overlap_add_rows(const T* g, const T* w, T* dx, const FrameArgs& a, int64_t rows) {
  const int64_t padded = (a.frames - 1) * a.hop + a.n_fft, T_ = a.length;
  parallel_for(rows, a.frames * a.n_fft, [&](int64_t r0, int64_t r1) {
    std::vector<T> buf(static_cast<size_t>(padded));
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(buf.begin(), buf.end(), T(0));
      for (int64_t f = 0; f < a.frames; ++f) {
        const T* gf = g + (r * a.frames + f) * a.n_fft;
        T* b = buf.data() + f * a.hop;
#pragma omp simd
        for (int64_t i = 0; i < a.n_fft; ++i) b[i] += gf[i] * w[i];
      }
      auto at = [&](int64_t p) { return p < padded ? buf[p] : T(0); };
      T* d = dx + r * T_;
      for (int64_t t = 0; t < T_; ++t) {
        T acc = at(t + a.pad);
        if (a.pad > 0 && t >= 1 && t <= a.pad) acc += at(a.pad - t);
        if (a.pad > 0 && t >= T_ - 1 - a.pad && t <= T_ - 2) acc += at(a.pad + 2 * (T_ - 1) - t);
        d[t] = acc;
      }
    }
  });
}

void cpu_frames(const Tensor& x, const Tensor& window, const FrameArgs& args, const Tensor& out) {
  dispatch_float(x.dtype(), "stft", [&]<class T>() {
    frames_rows<T>(x.data<T>(), window.data<T>(), out.data<T>(), args, rows_of(x, args.length));
  });
}

void cpu_overlap_add(const Tensor& g, const Tensor& window, const FrameArgs& args, const Tensor& dx) {
  dispatch_float(g.dtype(), "stft", [&]<class T>() {
    overlap_add_rows<T>(g.data<T>(), window.data<T>(), dx.data<T>(), args, rows_of(dx, args.length));
  });
}

[[maybe_unused]] const bool stft_bound = (frame_kernel.cpu = cpu_frames, overlap_add_kernel.cpu = cpu_overlap_add, true);

}  // namespace
}  // namespace hm

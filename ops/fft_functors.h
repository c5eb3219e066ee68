// The framing of stft as per-element functors for the CUDA kernels and their host twins
// (cuda/fft.cu): gathering windowed frames from a reflect-padded signal, and its adjoint as a
// gather too (each output sample sums the frame elements it fed), so no atomics are needed.
// The CPU (ops/cpu/fft.cpp) computes the same values row by row, sharing reflect_index; the
// "[cuda]" test of tests/ops/test_fft.cpp holds the two against each other.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"
#include "harmonic/ops/stft_kernels.h"

namespace hm {

// The sample of a row (length T) that padded position p reads: reflection without repeating
// the edge (torch's pad_mode='reflect'); valid while pad < T.
HM_HD int64_t reflect_index(int64_t p, int64_t pad, int64_t T) {
  int64_t q = p - pad;
  if (q < 0) q = -q;
  if (q >= T) q = 2 * (T - 1) - q;
  return q;
}

// out (rows, frames, n_fft) from x (rows, T): one element per index.
template <class T>
struct FrameGather {
  const T* x;
  const T* window;
  T* out;
  FrameArgs a;
  HM_HD void operator()(int64_t idx) const {
    const int64_t i = idx % a.n_fft, rf = idx / a.n_fft, f = rf % a.frames, r = rf / a.frames;
    out[idx] = x[r * a.length + reflect_index(f * a.hop + i, a.pad, a.length)] * window[i];
  }
};

// dx (rows, T) from g (rows, frames, n_fft): sample t collects every padded position that
// reads it (itself, and its mirror images inside the left and right padding), and each such
// position the frames that cover it.
template <class T>
struct FrameScatter {
  const T* g;
  const T* window;
  T* dx;
  FrameArgs a;
  HM_HD T position(const T* gr, int64_t p) const {  // sum over frames f with 0 <= p - f hop < n_fft
    int64_t f_hi = p / a.hop;
    if (f_hi > a.frames - 1) f_hi = a.frames - 1;
    const int64_t lo = p - a.n_fft + 1;
    int64_t f_lo = lo <= 0 ? 0 : (lo + a.hop - 1) / a.hop;
    T acc = 0;
    for (int64_t f = f_lo; f <= f_hi; ++f) {
      const int64_t i = p - f * a.hop;
      acc += gr[f * a.n_fft + i] * window[i];
    }
    return acc;
  }
  HM_HD void operator()(int64_t idx) const {
    const int64_t t = idx % a.length, r = idx / a.length, T_ = a.length;
    const T* gr = g + r * a.frames * a.n_fft;
    T acc = position(gr, t + a.pad);
    if (a.pad > 0 && t >= 1 && t <= a.pad) acc += position(gr, a.pad - t);
    if (a.pad > 0 && t >= T_ - 1 - a.pad && t <= T_ - 2) acc += position(gr, a.pad + 2 * (T_ - 1) - t);
    dx[idx] = acc;
  }
};

}  // namespace hm

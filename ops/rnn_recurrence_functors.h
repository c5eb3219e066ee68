// One (batch row, unit j) element of a fused RNN/LSTM/GRU step, forward and backward: the
// formulas the CPU kernels (ops/cpu/rnn_recurrence.cpp, a row at a time under omp simd) and the
// CUDA kernels (cuda/rnn_recurrence.cu, an element per thread) both run, with the backend's math
// policy M (M::sigmoid, M::tanh). Row layouts as in ops/rnn_recurrence_kernels.h: x (G*H) the
// input projection, hw (G*H) = h_{t-1} W_hh^T + b_hh, gates in PyTorch's order.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm::rnn {

template <class M, class T>
HM_HD void tanh_forward_at(int64_t j, const T* x, const T* hw, T* h) {
  h[j] = M::tanh(x[j] + hw[j]);
}

// a (4H): the four activations; cp, c (H): c_{t-1}, c_t.
template <class M, class T>
HM_HD void lstm_forward_at(int64_t H, int64_t j, const T* x, const T* hw, const T* cp, T* a, T* c, T* h) {
  const T i = M::sigmoid(x[j] + hw[j]), f = M::sigmoid(x[H + j] + hw[H + j]);
  const T g = M::tanh(x[2 * H + j] + hw[2 * H + j]), o = M::sigmoid(x[3 * H + j] + hw[3 * H + j]);
  const T cj = f * cp[j] + i * g;
  a[j] = i, a[H + j] = f, a[2 * H + j] = g, a[3 * H + j] = o;
  c[j] = cj;
  h[j] = o * M::tanh(cj);
}

// a (4H): r, z, n and hw's n block (what r multiplies); hp (H): h_{t-1}.
template <class M, class T>
HM_HD void gru_forward_at(int64_t H, int64_t j, const T* x, const T* hw, const T* hp, T* a, T* h) {
  const T r = M::sigmoid(x[j] + hw[j]), z = M::sigmoid(x[H + j] + hw[H + j]), hn = hw[2 * H + j];
  const T n = M::tanh(x[2 * H + j] + r * hn);
  a[j] = r, a[H + j] = z, a[2 * H + j] = n, a[3 * H + j] = hn;
  h[j] = n + z * (hp[j] - n);
}

// Backward: gy (H) the upstream gradient of h_t, dh (H) the recurrent one (from step t+1); gx
// (G*H) receives the pre-activation gradients.
template <class T>
HM_HD void tanh_backward_at(int64_t j, const T* gy, const T* dh, const T* h, T* gx) {
  gx[j] = (gy[j] + dh[j]) * (T(1) - h[j] * h[j]);
}

// dc (H): in, d c_t from step t+1; out, d c_{t-1}.
template <class M, class T>
HM_HD void lstm_backward_at(int64_t H, int64_t j, const T* gy, const T* dh, const T* a, const T* cp, const T* c, T* dc,
                            T* gx) {
  const T i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j];
  const T tc = M::tanh(c[j]);
  const T dhj = gy[j] + dh[j];
  const T dcj = dc[j] + dhj * o * (T(1) - tc * tc);
  gx[j] = dcj * g * i * (T(1) - i);
  gx[H + j] = dcj * cp[j] * f * (T(1) - f);
  gx[2 * H + j] = dcj * i * (T(1) - g * g);
  gx[3 * H + j] = dhj * tc * o * (T(1) - o);
  dc[j] = dcj * f;
}

// ghw (3H): the gradient of hw, which differs from gx in the n block (r multiplies hw's).
// dh: in, the recurrent gradient; out, the direct part z dh of d h_{t-1}.
template <class T>
HM_HD void gru_backward_at(int64_t H, int64_t j, const T* gy, T* dh, const T* a, const T* hp, T* gx, T* ghw) {
  const T r = a[j], z = a[H + j], n = a[2 * H + j], hn = a[3 * H + j];
  const T dhj = gy[j] + dh[j];
  const T dn = dhj * (T(1) - z) * (T(1) - n * n);
  const T dz = dhj * (hp[j] - n) * z * (T(1) - z);
  const T dr = dn * hn * r * (T(1) - r);
  gx[j] = ghw[j] = dr;
  gx[H + j] = ghw[H + j] = dz;
  gx[2 * H + j] = dn;
  ghw[2 * H + j] = dn * r;
  dh[j] = dhj * z;
}

}  // namespace hm::rnn

// Kernel slots of the fused RNN/LSTM/GRU recurrences (ops/rnn_recurrence.h). Time-major layout:
// every step is one contiguous (B, ...) block, and the weight gradient is one GEMM over all
// T*B rows.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// The cell, with G gates of H units each (PyTorch's gate order).
enum class RnnCell {
  Tanh,  // G = 1: h_t = tanh(xw_t + h_{t-1} W^T + b)
  LSTM,  // G = 4 (i, f, g, o): c_t = f c_{t-1} + i g, h_t = o tanh(c_t)
  GRU,   // G = 3 (r, z, n): n = tanh(xw_n + r (h_{t-1} W_n^T + b_n)), h_t = (1 - z) n + z h_{t-1}
};
constexpr int64_t rnn_gates(RnnCell cell) { return cell == RnnCell::Tanh ? 1 : cell == RnnCell::LSTM ? 4 : 3; }

// For t = 0..T-1, with h_{-1} = h0 (and c_{-1} = c0), the cell's step on the pre-activations
// xw_t + h_{t-1} W_hh^T + b_hh.
//   xw (T, B, G*H): the input projection of every step (x W_ih^T + b_ih, one GEMM outside).
//   w_hh (G*H, H); b_hh (G*H) or undefined; h0 (B, H); c0 (B, H) for LSTM, else undefined.
// Writes y: h_t at rows 0..T-1 ((T, B, H)); for LSTM y is (T+1, B, H) and row T is c_{T-1}.
// Saves for backward: act (T, B, 4*H), LSTM: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o);
// GRU: r, z, n and h_{t-1} W_hn^T + b_hn; undefined for Tanh. c (T, B, H): LSTM's c_t, else
// undefined. All contiguous, one float dtype.
inline Kernel<void(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                   const Tensor& c0, const Tensor& y, const Tensor& act, const Tensor& c)>
    rnn_forward_kernel{"rnn_forward"};

// Backward through time given g_y (y's shape) and the forward's y, act, c. Writes g_xw
// (T, B, G*H), g_w_hh (G*H, H), g_b_hh (G*H; undefined: not wanted), g_h0 (B, H) and g_c0
// (B, H; LSTM only).
inline Kernel<void(RnnCell cell, const Tensor& g_y, const Tensor& w_hh, const Tensor& h0, const Tensor& c0,
                   const Tensor& y, const Tensor& act, const Tensor& c, const Tensor& g_xw, const Tensor& g_w_hh,
                   const Tensor& g_b_hh, const Tensor& g_h0, const Tensor& g_c0)>
    rnn_backward_kernel{"rnn_backward"};

}  // namespace hm

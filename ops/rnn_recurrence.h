// Fused whole-sequence recurrences of the RNN (tanh), LSTM and GRU layers (nn/recurrent.h):
// ONE tape entry per call with a hand-written backward through time. Each step is one GEMM
// h_{t-1} W_hh^T and one pass over the gates; see ops/rnn_recurrence_kernels.h for the exact cells. On the
// CPU the fused kernels run; other devices run the composed twins (namespace detail), which are
// also the reference the tests hold the fused ops against.
#pragma once
#include <utility>

#include "harmonic/core/tensor.h"

namespace hm {

struct RecurrenceOutput {
  Tensor output;  // (T, B, H): h_t at every step
  Tensor h_n;     // (B, H): h_{T-1}
  Tensor c_n;     // (B, H): c_{T-1} for LSTM, undefined otherwise
};

// xw (T, B, G*H): the input projection x_t W_ih^T + b_ih of every step (computed outside as one
//   GEMM over all steps; its backward is the projection's).
// w_hh (G*H, H), b_hh (G*H) or undefined, h0 and c0 (B, H) or undefined (zeros).
// Differentiable w.r.t. xw, w_hh, b_hh, h0 and c0; output, h_n and c_n are views of one result.
RecurrenceOutput rnn_tanh_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {},
                                     const Tensor& h0 = {});
// Gates i, f, g, o: c_t = sig(f) c_{t-1} + sig(i) tanh(g), h_t = sig(o) tanh(c_t).
RecurrenceOutput lstm_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {}, const Tensor& h0 = {},
                                 const Tensor& c0 = {});
// Gates r, z, n as PyTorch: n = tanh(xw_n + r (h W_hn^T + b_hn)), h_t = (1 - z) n + z h_{t-1}.
RecurrenceOutput gru_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {}, const Tensor& h0 = {});

namespace detail {
// The composed forms (the same checks; linear, chunk, sigmoid, tanh, mul, add and stack per
// step): what other devices run and what the tests compare against.
RecurrenceOutput rnn_tanh_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {},
                                              const Tensor& h0 = {});
RecurrenceOutput lstm_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {},
                                          const Tensor& h0 = {}, const Tensor& c0 = {});
RecurrenceOutput gru_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh = {},
                                         const Tensor& h0 = {});

// One composed step given that step's input projection xw (B, G*H); h, c (B, H). The cells of
// nn/recurrent.h are these on x W_ih^T + b_ih.
Tensor rnn_tanh_step(const Tensor& xw, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
std::pair<Tensor, Tensor> lstm_step(const Tensor& xw, const Tensor& h, const Tensor& c, const Tensor& w_hh,
                                    const Tensor& b_hh);  // (h', c')
Tensor gru_step(const Tensor& xw, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
}  // namespace detail

}  // namespace hm

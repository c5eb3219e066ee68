// Fused RNN/LSTM/GRU recurrences: checks, allocation and the tape entry (the compute is in
// ops/cpu/rnn_recurrence.cpp and cuda/rnn_recurrence.cu behind the slots of ops/rnn_recurrence_kernels.h), and
// their composed twins.
#include "harmonic/ops/rnn_recurrence.h"

#include "harmonic/autograd/node.h"
#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

const char* name_of(RnnCell cell) {
  return cell == RnnCell::Tanh ? "rnn_tanh_recurrence" : cell == RnnCell::LSTM ? "lstm_recurrence" : "gru_recurrence";
}

struct Sizes {
  int64_t T, B, H;
};

// Every input of the recurrence against xw and w_hh; c0 is LSTM's only.
Sizes check_inputs(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                   const Tensor& c0) {
  const char* fn = name_of(cell);
  const int64_t G = rnn_gates(cell);
  check(xw.defined() && w_hh.defined(), fn, "xw and w_hh must be defined");
  HM_CHECK(xw.dim() == 3, fn, "xw must be (T, B, {}*H), got {}", G, xw.desc());
  HM_CHECK(w_hh.dim() == 2 && w_hh.size(0) == G * w_hh.size(1), fn, "w_hh must be ({}*H, H), got {} (xw {})", G,
           w_hh.desc(), xw.desc());
  const Sizes s{xw.size(0), xw.size(1), w_hh.size(1)};
  HM_CHECK(s.T > 0 && s.B > 0 && s.H > 0, fn, "empty sizes: xw {}, w_hh {}", xw.desc(), w_hh.desc());
  HM_CHECK(xw.size(2) == G * s.H, fn, "xw must be (T, B, {}) for w_hh {}, got {}", G * s.H, w_hh.desc(), xw.desc());
  HM_CHECK(is_floating(xw.dtype()) && xw.dtype() != DType::BFloat16, fn, "xw must be float32 or float64, got {}",
           xw.desc());
  auto check_one = [&](const Tensor& t, const Shape& want, const char* what) {
    if (!t.defined()) return;
    HM_CHECK(t.shape() == want, fn, "{} must have shape {}, got {} (xw {})", what, str(want), t.desc(), xw.desc());
    HM_CHECK(t.dtype() == xw.dtype() && t.device() == xw.device(), fn, "{} must match xw ({}), got {}", what, xw.desc(),
             t.desc());
  };
  HM_CHECK(w_hh.dtype() == xw.dtype() && w_hh.device() == xw.device(), fn, "w_hh must match xw ({}), got {}", xw.desc(),
           w_hh.desc());
  check_one(b_hh, {G * s.H}, "b_hh");
  check_one(h0, {s.B, s.H}, "h0");
  check_one(c0, {s.B, s.H}, "c0");
  return s;
}

Tensor state_or_zeros(const Tensor& s, const Sizes& n, const Tensor& like) {
  return s.defined() ? s : zeros({n.B, n.H}, {.dtype = like.dtype(), .device = like.device()});
}

RecurrenceOutput fused(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0_in,
                       const Tensor& c0_in) {
  const Sizes n = check_inputs(cell, xw, w_hh, b_hh, h0_in, c0_in);
  const bool lstm = cell == RnnCell::LSTM;
  const int64_t T = n.T, B = n.B, H = n.H, GH = rnn_gates(cell) * H;
  Tensor xwc = xw.contiguous(), whc = w_hh.contiguous(), bhc = b_hh.defined() ? b_hh.contiguous() : Tensor();
  Tensor h0 = state_or_zeros(h0_in, n, xw).contiguous();
  Tensor c0 = lstm ? state_or_zeros(c0_in, n, xw).contiguous() : Tensor();
  const TensorOptions opt{.dtype = xw.dtype(), .device = xw.device()};
  Tensor y = empty({lstm ? T + 1 : T, B, H}, opt);  // h_0..h_{T-1}, then LSTM's c_{T-1}
  Tensor act = cell == RnnCell::Tanh ? Tensor() : empty({T, B, 4 * H}, opt);
  Tensor c = lstm ? empty({T, B, H}, opt) : Tensor();
  rnn_forward_kernel(xw.device(), cell, xwc, whc, bhc, h0, c0, y, act, c);

  std::vector<Tensor> inputs{xw, w_hh, b_hh, h0_in, c0_in};
  if (autograd::will_record(inputs)) {
    autograd::Saved s_w(whc), s_h0(h0), s_c0(c0), s_y(y), s_act(act), s_c(c);
    const bool has_bias = b_hh.defined();
    y = autograd::record(name_of(cell), y, inputs, [=](const Tensor& g, const autograd::NeedsGrad& needs) {
      Tensor w = s_w.get(), ys = s_y.get();
      const TensorOptions o{.dtype = ys.dtype(), .device = ys.device()};
      Tensor g_xw = empty({T, B, GH}, o), g_h0 = empty({B, H}, o), g_c0 = lstm ? empty({B, H}, o) : Tensor();
      Tensor g_w = needs[1] ? empty(w.shape(), o) : Tensor(), g_b = has_bias && needs[2] ? empty({GH}, o) : Tensor();
      rnn_backward_kernel(ys.device(), cell, g.contiguous(), w, s_h0.get(), s_c0.get(), ys, s_act.get(), s_c.get(),
                          g_xw, g_w, g_b, g_h0, g_c0);
      return std::vector<Tensor>{g_xw, g_w, g_b, g_h0, g_c0};
    });
  }
  return {lstm ? narrow(y, 0, 0, T) : y, select(y, 0, T - 1), lstm ? select(y, 0, T) : Tensor()};
}

// The composed form on the same checks, one step function per cell.
RecurrenceOutput composed(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                          const Tensor& c0) {
  const Sizes n = check_inputs(cell, xw, w_hh, b_hh, h0, c0);
  Tensor h = state_or_zeros(h0, n, xw), c = cell == RnnCell::LSTM ? state_or_zeros(c0, n, xw) : Tensor();
  std::vector<Tensor> hs;
  hs.reserve(static_cast<size_t>(n.T));
  // Plain selects: the engine accumulates the T slice gradients into one buffer
  // (autograd/engine.cpp), so this stays O(T) in backward.
  for (int64_t t = 0; t < n.T; ++t) {
    Tensor xt = select(xw, 0, t);  // (B, G*H)
    if (cell == RnnCell::LSTM)
      std::tie(h, c) = detail::lstm_step(xt, h, c, w_hh, b_hh);
    else if (cell == RnnCell::GRU)
      h = detail::gru_step(xt, h, w_hh, b_hh);
    else
      h = detail::rnn_tanh_step(xt, h, w_hh, b_hh);
    hs.push_back(h);
  }
  return {stack(hs, 0), h, c};
}

}  // namespace

RecurrenceOutput rnn_tanh_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0) {
  return fused(RnnCell::Tanh, xw, w_hh, b_hh, h0, {});
}

RecurrenceOutput lstm_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                                 const Tensor& c0) {
  return fused(RnnCell::LSTM, xw, w_hh, b_hh, h0, c0);
}

RecurrenceOutput gru_recurrence(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0) {
  return fused(RnnCell::GRU, xw, w_hh, b_hh, h0, {});
}

namespace detail {

RecurrenceOutput rnn_tanh_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh,
                                              const Tensor& h0) {
  return composed(RnnCell::Tanh, xw, w_hh, b_hh, h0, {});
}

RecurrenceOutput lstm_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                                          const Tensor& c0) {
  return composed(RnnCell::LSTM, xw, w_hh, b_hh, h0, c0);
}

RecurrenceOutput gru_recurrence_composed(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0) {
  return composed(RnnCell::GRU, xw, w_hh, b_hh, h0, {});
}

Tensor rnn_tanh_step(const Tensor& xw, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return tanh(xw + linear(h, w_hh, b_hh));  // (B, H)
}

std::pair<Tensor, Tensor> lstm_step(const Tensor& xw, const Tensor& h, const Tensor& c, const Tensor& w_hh,
                                    const Tensor& b_hh) {
  std::vector<Tensor> g = chunk(xw + linear(h, w_hh, b_hh), 4, 1);  // i, f, g, o: (B, H) each
  Tensor c_next = sigmoid(g[1]) * c + sigmoid(g[0]) * tanh(g[2]);
  return {sigmoid(g[3]) * tanh(c_next), c_next};
}

Tensor gru_step(const Tensor& xw, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  std::vector<Tensor> xg = chunk(xw, 3, 1), hg = chunk(linear(h, w_hh, b_hh), 3, 1);  // r, z, n
  Tensor r = sigmoid(xg[0] + hg[0]), z = sigmoid(xg[1] + hg[1]);
  Tensor n = tanh(xg[2] + r * hg[2]);
  return n + z * (h - n);  // (1 - z) n + z h
}

}  // namespace detail
}  // namespace hm

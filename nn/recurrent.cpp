#include "harmonic/nn/recurrent.h"

#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/rnn_layer.h"
#include "harmonic/ops/rnn_recurrence.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::nn {
namespace {

int64_t gate_count(RecurrentKind kind) {
  switch (kind) {
    case RecurrentKind::RNN:
      return 1;
    case RecurrentKind::LSTM:
      return 4;
    case RecurrentKind::GRU:
      return 3;
  }
  return 1;
}

const char* kind_name(RecurrentKind kind) {
  switch (kind) {
    case RecurrentKind::RNN:
      return "RNN";
    case RecurrentKind::LSTM:
      return "LSTM";
    case RecurrentKind::GRU:
      return "GRU";
  }
  return "?";
}

void check_state(const Tensor& s, const Shape& expected, const char* fn, const char* what) {
  HM_CHECK(s.shape() == expected, fn, "{} must have shape {}, got {}", what, str(expected), s.desc());
}

}  // namespace

// -- functional cells ---------------------------------------------------------------------------

Tensor rnn_tanh_cell(const Tensor& x, const Tensor& h, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  return detail::rnn_tanh_step(linear(x, w_ih, b_ih), h, w_hh, b_hh);
}

LSTMState lstm_cell(const Tensor& x, const LSTMState& state, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                    const Tensor& b_hh) {
  auto [h, c] = detail::lstm_step(linear(x, w_ih, b_ih), state.h, state.c, w_hh, b_hh);
  return {h, c};
}

Tensor gru_cell(const Tensor& x, const Tensor& h, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                const Tensor& b_hh) {
  return detail::gru_step(linear(x, w_ih, b_ih), h, w_hh, b_hh);
}

// -- cell modules -------------------------------------------------------------------------------

RecurrentCell::RecurrentCell(const std::string& type, int64_t gates, int64_t in, int64_t hidden, bool bias,
                             Generator* gen)
    : Module(fmt::format("{}({}, {})", type, in, hidden)), input_size(in), hidden_size(hidden) {
  check(in > 0 && hidden > 0, type, "sizes must be positive, got input_size={} hidden_size={}", in, hidden);
  double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  weight_ih = register_parameter("weight_ih", uniform_(empty({gates * hidden, in}), -bound, bound, gen));
  weight_hh = register_parameter("weight_hh", uniform_(empty({gates * hidden, hidden}), -bound, bound, gen));
  if (bias) {
    bias_ih = register_parameter("bias_ih", uniform_(empty({gates * hidden}), -bound, bound, gen));
    bias_hh = register_parameter("bias_hh", uniform_(empty({gates * hidden}), -bound, bound, gen));
  }
}

Tensor RecurrentCell::zero_state(const Tensor& x) const {
  return zeros({x.size(0), hidden_size}, {.dtype = x.dtype(), .device = x.device()});
}

void RecurrentCell::check_input(const Tensor& x, const Tensor& h, const char* fn) const {
  HM_CHECK(x.dim() == 2 && x.size(1) == input_size, fn, "expected input (B, {}), got {}", input_size, x.desc());
  if (h.defined()) check_state(h, {x.size(0), hidden_size}, fn, "state");
}

RNNCell::RNNCell(int64_t in, int64_t hidden, bool bias, Generator* gen)
    : RecurrentCell("RNNCell", 1, in, hidden, bias, gen) {}

Tensor RNNCell::forward(const Tensor& x, const Tensor& h) {
  check_input(x, h, "RNNCell");
  return rnn_tanh_cell(x, h.defined() ? h : zero_state(x), weight_ih, weight_hh, bias_ih, bias_hh);
}

LSTMCell::LSTMCell(int64_t in, int64_t hidden, bool bias, Generator* gen)
    : RecurrentCell("LSTMCell", 4, in, hidden, bias, gen) {}

LSTMState LSTMCell::forward(const Tensor& x, const LSTMState& state) {
  check_input(x, state.h, "LSTMCell");
  check_input(x, state.c, "LSTMCell");
  LSTMState s{state.h.defined() ? state.h : zero_state(x), state.c.defined() ? state.c : zero_state(x)};
  return lstm_cell(x, s, weight_ih, weight_hh, bias_ih, bias_hh);
}

GRUCell::GRUCell(int64_t in, int64_t hidden, bool bias, Generator* gen)
    : RecurrentCell("GRUCell", 3, in, hidden, bias, gen) {}

Tensor GRUCell::forward(const Tensor& x, const Tensor& h) {
  check_input(x, h, "GRUCell");
  return gru_cell(x, h.defined() ? h : zero_state(x), weight_ih, weight_hh, bias_ih, bias_hh);
}

// -- sequence modules ---------------------------------------------------------------------------

Recurrent::Recurrent(RecurrentKind kind_, int64_t in, int64_t hidden, RecurrentOptions opt, Generator* gen)
    : Module(fmt::format("{}({}, {}, layers={})", kind_name(kind_), in, hidden, opt.num_layers)),
      kind(kind_),
      input_size(in),
      hidden_size(hidden),
      options(opt),
      gen_(gen) {
  const char* fn = kind_name(kind);
  check(in > 0 && hidden > 0 && opt.num_layers > 0, fn,
        "sizes must be positive, got input_size={} hidden_size={} num_layers={}", in, hidden, opt.num_layers);
  check(opt.dropout >= 0.0 && opt.dropout <= 1.0, fn, "dropout must be in [0, 1], got {}", opt.dropout);
  const int64_t gh = gate_count(kind) * hidden;
  double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  auto param = [&](const std::string& name, const Shape& shape) {
    return register_parameter(name, uniform_(empty(shape), -bound, bound, gen));
  };
  for (int64_t l = 0; l < opt.num_layers; ++l) {
    weight_ih.push_back(param(fmt::format("weight_ih_l{}", l), {gh, l == 0 ? in : hidden}));
    weight_hh.push_back(param(fmt::format("weight_hh_l{}", l), {gh, hidden}));
    bias_ih.push_back(opt.bias ? param(fmt::format("bias_ih_l{}", l), {gh}) : Tensor());
    bias_hh.push_back(opt.bias ? param(fmt::format("bias_hh_l{}", l), {gh}) : Tensor());
  }
}

RecurrentOutput Recurrent::run(const Tensor& input, const Tensor& h0_in, const Tensor& c0_in) {
  const char* fn = kind_name(kind);
  HM_CHECK(input.dim() == 2 || input.dim() == 3, fn, "expected input (T, B, {0}){1} or unbatched (T, {0}), got {2}",
           input_size, options.batch_first ? " [batch_first: (B, T, in)]" : "", input.desc());
  HM_CHECK(input.size(-1) == input_size, fn, "expected input feature size {}, got {}", input_size, input.desc());
  const bool unbatched = input.dim() == 2;
  Tensor x = unbatched ? unsqueeze(input, 1) : options.batch_first ? transpose(input, 0, 1) : input;  // (T, B, in)
  const int64_t T = x.size(0), B = x.size(1), L = options.num_layers, H = hidden_size;
  HM_CHECK(T > 0, fn, "sequence length must be positive, got {}", input.desc());
  const Shape state_shape = unbatched ? Shape{L, H} : Shape{L, B, H};
  auto initial = [&](const Tensor& s, const char* what) {
    if (!s.defined()) return s;  // zeros, made by the recurrence
    check_state(s, state_shape, fn, what);
    return unbatched ? unsqueeze(s, 1) : s;
  };
  Tensor h0 = initial(h0_in, "h0");
  Tensor c0 = kind == RecurrentKind::LSTM ? initial(c0_in, "c0") : Tensor();
  auto layer_state = [](const Tensor& s, int64_t l) { return s.defined() ? select(s, 0, l) : Tensor(); };

  Tensor layer_in = x;  // (T, B, in) then (T, B, H)
  std::vector<Tensor> h_last, c_last;
  for (int64_t l = 0; l < L; ++l) {
    Tensor h = layer_state(h0, l), c = layer_state(c0, l);
    const RnnCell cell = kind == RecurrentKind::LSTM ? RnnCell::LSTM
                         : kind == RecurrentKind::GRU ? RnnCell::GRU
                                                      : RnnCell::Tanh;
    RecurrenceOutput r;
    if (options.fused) {  // the own kernels, or cuDNN where ops/rnn_layer.h routes there
      r = rnn_layer(cell, layer_in, weight_ih[l], bias_ih[l], weight_hh[l], bias_hh[l], h, c);
    } else {
      Tensor xw = linear(layer_in, weight_ih[l], bias_ih[l]);  // (T, B, G*H): one GEMM for all steps
      if (cell == RnnCell::LSTM)
        r = detail::lstm_recurrence_composed(xw, weight_hh[l], bias_hh[l], h, c);
      else if (cell == RnnCell::GRU)
        r = detail::gru_recurrence_composed(xw, weight_hh[l], bias_hh[l], h);
      else
        r = detail::rnn_tanh_recurrence_composed(xw, weight_hh[l], bias_hh[l], h);
    }
    layer_in = r.output;
    if (options.dropout > 0.0 && is_training() && l + 1 < L) layer_in = dropout(layer_in, options.dropout, true, gen_);
    h_last.push_back(r.h_n);
    if (r.c_n.defined()) c_last.push_back(r.c_n);
  }

  RecurrentOutput out{layer_in, stack(h_last, 0), c_last.empty() ? Tensor() : stack(c_last, 0)};
  if (unbatched) {
    out.output = squeeze(out.output, 1);
    out.h_n = squeeze(out.h_n, 1);
    if (out.c_n.defined()) out.c_n = squeeze(out.c_n, 1);
  } else if (options.batch_first) {
    out.output = transpose(out.output, 0, 1);
  }
  return out;
}

}  // namespace hm::nn

// Recurrent layers. A sequence layer is, per layer, ops/rnn_layer.h: one GEMM for the input
// projection of all steps and then the fused recurrence of ops/rnn_recurrence.h (one tape entry
// for the whole sequence), or on CUDA with the switch on, cuDNN's RNN for the whole layer; the cells and the `fused = false` reference are composed from ops (linear,
// sigmoid, tanh, chunk, stack). Parameter names, shapes, gate orders and init follow PyTorch:
//   cells:        weight_ih (G*H, in), weight_hh (G*H, H), bias_ih (G*H), bias_hh (G*H)
//   multi-layer:  weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}
// with G = 1 (RNN, tanh), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n); every parameter starts
// U(-1/sqrt(H), 1/sqrt(H)).
#pragma once
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

struct LSTMState {
  Tensor h;  // (B, H) for a cell, (L, B, H) for a stack
  Tensor c;  // same shape as h
};

// -- functional single steps (x (B, in), h/c (B, H); biases may be undefined) -------------------
Tensor rnn_tanh_cell(const Tensor& x, const Tensor& h, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih = {},
                     const Tensor& b_hh = {});
// c' = sig(f) c + sig(i) tanh(g), h' = sig(o) tanh(c').
LSTMState lstm_cell(const Tensor& x, const LSTMState& state, const Tensor& w_ih, const Tensor& w_hh,
                    const Tensor& b_ih = {}, const Tensor& b_hh = {});
// n = tanh(x W_in + b_in + r (h W_hn + b_hn)), h' = (1 - z) n + z h.
Tensor gru_cell(const Tensor& x, const Tensor& h, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih = {},
                const Tensor& b_hh = {});

// -- cells ------------------------------------------------------------------------------------
// The parameters shared by the three cell types.
class RecurrentCell : public Module {
 public:
  RecurrentCell(const std::string& type, int64_t gates, int64_t input_size, int64_t hidden_size, bool bias,
                Generator* gen);
  int64_t input_size, hidden_size;
  Tensor weight_ih, weight_hh;  // (G*H, in), (G*H, H)
  Tensor bias_ih, bias_hh;      // (G*H) or undefined

 protected:
  Tensor zero_state(const Tensor& x) const;  // (B, H) zeros like x
  void check_input(const Tensor& x, const Tensor& h, const char* fn) const;
};

class RNNCell : public RecurrentCell {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, Generator* gen = nullptr);
  Tensor forward(const Tensor& x, const Tensor& h = {});  // (B, in), (B, H) -> (B, H); h defaults to 0
};

class LSTMCell : public RecurrentCell {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true, Generator* gen = nullptr);
  LSTMState forward(const Tensor& x, const LSTMState& state = {});  // (B, in) -> h, c (B, H)
};

class GRUCell : public RecurrentCell {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true, Generator* gen = nullptr);
  Tensor forward(const Tensor& x, const Tensor& h = {});
};

// -- multi-step, multi-layer ------------------------------------------------------------------
struct RecurrentOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;  // x (B, T, in) instead of (T, B, in); states stay (L, B, H)
  double dropout = 0.0;      // on each layer's outputs but the last, in training
  bool fused = true;         // false: the composed step loop (the reference the tests compare)
};

struct RecurrentOutput {
  Tensor output;  // last layer's h at every step: (T, B, H), or (B, T, H) when batch_first
  Tensor h_n;     // (L, B, H): every layer's last h
  Tensor c_n;     // (L, B, H) for LSTM, undefined otherwise
};

enum class RecurrentKind { RNN, LSTM, GRU };

// Runs the whole sequence; the input projections of all steps are one GEMM per layer.
// 2-d inputs (T, in) are unbatched: the output is (T, H) and the states (L, H).
class Recurrent : public Module {
 public:
  Recurrent(RecurrentKind kind, int64_t input_size, int64_t hidden_size, RecurrentOptions opt, Generator* gen);
  // h0 (and c0 for LSTM) default to zeros.
  RecurrentOutput run(const Tensor& x, const Tensor& h0 = {}, const Tensor& c0 = {});

  RecurrentKind kind;
  int64_t input_size, hidden_size;
  RecurrentOptions options;
  std::vector<Tensor> weight_ih, weight_hh, bias_ih, bias_hh;  // per layer, as in the cells

 private:
  Generator* gen_;  // dropout between layers; not owned
};

class RNN : public Recurrent {
 public:
  RNN(int64_t input_size, int64_t hidden_size, RecurrentOptions opt = {}, Generator* gen = nullptr)
      : Recurrent(RecurrentKind::RNN, input_size, hidden_size, opt, gen) {}
  RecurrentOutput forward(const Tensor& x, const Tensor& h0 = {}) { return run(x, h0); }
};

class LSTM : public Recurrent {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, RecurrentOptions opt = {}, Generator* gen = nullptr)
      : Recurrent(RecurrentKind::LSTM, input_size, hidden_size, opt, gen) {}
  RecurrentOutput forward(const Tensor& x, const LSTMState& state = {}) { return run(x, state.h, state.c); }
};

class GRU : public Recurrent {
 public:
  GRU(int64_t input_size, int64_t hidden_size, RecurrentOptions opt = {}, Generator* gen = nullptr)
      : Recurrent(RecurrentKind::GRU, input_size, hidden_size, opt, gen) {}
  RecurrentOutput forward(const Tensor& x, const Tensor& h0 = {}) { return run(x, h0); }
};

}  // namespace hm::nn

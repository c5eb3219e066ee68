// Fourier Recurrent Unit (Zhang et al., ICML 2018, section 3, eq. 4-5, in the form of the authors'
// released code, github.com/limbo018/FRU) and its statistical-recurrent-unit baseline
// (Oliva et al. 2017). Both keep a state mu (B, K*d): K "channels" of d dims each, updated by
//   r_t   = relu(W_r mu_{t-1} + b_r)                 (R)
//   phi_t = relu(W_phi [x_t ; r_t] + b_phi)          (d)
//   mu_t[k,:] = m_k mu_{t-1}[k,:] + c_k(t) phi_t
//   o_t   = relu(W_o mu_t + b_o)                     (units)
// FRU: c_k(t) = cos(2 pi f_k t / T + 2 pi theta_k) / T, m_k = 1 (0 for the f = 0 slot with
// mask_f0 and K > 1), t = 0..T-1 (1..T with first_step = 1). SRU: c_k = 1 - alpha_k,
// m_k = alpha_k, d = phi size.
// The recurrence runs as one fused tape entry (ops/fru_recurrence.h; CPU kernels only, other
// devices fall back to the composition) unless fused = false,
// which composes it step by step from ops (the reference).
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"
#include "harmonic/nn/recurrent.h"

namespace hm::nn {

struct FRUOptions {
  int64_t num_freqs = 60;      // K (frequency 0 included)
  int64_t dims_per_freq = 10;  // d
  int64_t r_size = 60;         // R
  int64_t output_units = 200;  // units of o_t
  double f_max = 784;          // largest frequency (pixel MNIST: T)
  double f_min = 0.25;         // smallest nonzero frequency (the paper's 0.25)
  int64_t seq_len = 784;       // T in the cos argument and the 1/T scale
  bool mask_f0 = true;         // released code: the f = 0 slot keeps no memory when K > 1
  int64_t first_step = 0;      // t of the first input in the cos argument: 0 (NOTES, released
                               // code) or 1 (the paper's eq. 5 sums tau = 1..t)
  bool fused = true;           // false: step-by-step composition from ops
  Generator* gen = nullptr;    // init (nullptr = default generator)
};

struct SRUOptions {
  std::vector<double> decays{0.0, 0.25, 0.5, 0.9, 0.99};  // alphas
  int64_t phi_size = 200;
  int64_t r_size = 60;
  int64_t output_units = 200;
  bool fused = true;
  Generator* gen = nullptr;
};

struct FRUOutput {
  Tensor output;  // o_t for every step (B, T, units)
  Tensor last;    // o_{T-1} (B, units)
  Tensor mu_n;    // last state (B, K*d)
};

// Shared parameters and forward of FRU and SRU (same recurrence, different coefficients).
class FourierStatRecurrent : public Module {
 public:
  // x (B, T, in), or (T, in) unbatched; mu0 (B, K*d) defaults to zeros.
  FRUOutput forward(const Tensor& x, const Tensor& mu0 = {});
  // Classification form (NOTES section 3: output = Linear(o_T)): the output layer at the last
  // step only. Returns output undefined, last and mu_n as forward does (same values and
  // gradients); the fused CPU path never materialises the (T, B, K*d) states.
  FRUOutput forward_last(const Tensor& x, const Tensor& mu0 = {});
  // The state at every step (B, T, K*d), without the output layer.
  Tensor states(const Tensor& x, const Tensor& mu0 = {});
  int64_t state_size() const { return num_channels * channel_dims; }

  int64_t input_size, num_channels, channel_dims, r_size, output_units;
  bool fused;
  Tensor weight_r, bias_r;      // (R, K*d), (R)
  Tensor weight_phi, bias_phi;  // (d, in + R), (d): columns [x ; r]
  Tensor weight_o, bias_o;      // (units, K*d), (units)
  Tensor decay;                 // buffer (K): m_k

 protected:
  FourierStatRecurrent(const std::string& type, int64_t input_size, int64_t channels, int64_t dims, int64_t r_size,
                       int64_t units, bool fused);
  // weight_r, bias_r, weight_phi, bias_phi, weight_o, bias_o: truncated normal std 0.1 weights
  // drawn from gen in that order, zero biases.
  void register_weights(Generator* gen);
  // c_k(t) for t = 0..T-1: (T, K), differentiable where the model trains it.
  virtual Tensor coefficients(int64_t T, const Tensor& like) const = 0;
  // m_k (K) in like's dtype. Default: the buffer. SRU rebuilds it from its double options: the
  // float32 buffer of a model converted to float64 would hold 0.9f = 0.899999976...
  virtual Tensor decay_values(const Tensor& like) const { return decay.to(like.dtype()); }

 private:
  // x (B, T, in) -> (T, B, K*d), or the last state (B, K*d) when last_only.
  Tensor states_time_major(const Tensor& x, const Tensor& mu0, bool last_only = false);
  // x (B, T, in) or (T, in) -> batched x and mu0, with the shape checks.
  std::pair<Tensor, Tensor> batched_inputs(const Tensor& x, const Tensor& mu0) const;
};

class FRU : public FourierStatRecurrent {
 public:
  FRU(int64_t input_size, FRUOptions opt = {});
  FRUOptions options;
  Tensor freqs;  // buffer (K): [0, geometric f_min .. f_max]
  Tensor theta;  // parameter (K): phases, in cycles

 protected:
  Tensor coefficients(int64_t T, const Tensor& like) const override;
};

class SRU : public FourierStatRecurrent {
 public:
  SRU(int64_t input_size, SRUOptions opt = {});
  SRUOptions options;

 protected:
  Tensor coefficients(int64_t T, const Tensor& like) const override;
  Tensor decay_values(const Tensor& like) const override;
};

// The fixed FRU frequencies: [0] followed by K-1 geometric points from f_min to f_max (the
// paper's "uniformly sampled in log space"; its ablations, Figures 10-12, move f_min and f_max).
std::vector<double> fru_frequencies(int64_t K, double f_max, double f_min = 0.25);

// Figure 5 of the FRU paper: for every step t, the gradient of loss_t w.r.t. the initial
// state mu0. per_step_loss(o, t) maps the outputs o (B, T, units) to the scalar loss of step t.
// Returns (T, K*d), summed over the batch; one backward pass per step.
Tensor grads_wrt_initial_state(FourierStatRecurrent& model, const Tensor& x,
                               const std::function<Tensor(const Tensor& o, int64_t t)>& per_step_loss);
// Rows (L1, L2, Linf) norms per step of the above: (T, 3).
Tensor grad_norms_per_step(const Tensor& grads);

}  // namespace hm::nn

namespace hm::nn {

// The FRU paper's LSTM baseline with a single bias vector per gate (163,610 parameters with
// LSTM-200 + Linear(200, 10) on pixel MNIST; PyTorch's two bias vectors give 164,410): a
// bias-free LSTM on [x ; 1], so the last column of weight_ih is the bias. Init U(+-1/sqrt(H))
// for all of it, as PyTorch. x (B, T, in) -> output (B, T, H), h_n/c_n (1, B, H).
class SingleBiasLSTM : public Module {
 public:
  SingleBiasLSTM(int64_t input_size, int64_t hidden_size, Generator* gen = nullptr);
  RecurrentOutput forward(const Tensor& x, const LSTMState& state = {});
  std::shared_ptr<LSTM> lstm;
};

}  // namespace hm::nn

// FRU / SRU layers (nn/fru.h): parameters, the fused and the composed recurrence, and the
// gradient-inspection helper of the FRU paper's Figure 5.
#include "harmonic/nn/fru.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/checked_math.h"
#include "harmonic/core/constant_cache.h"
#include "harmonic/core/cpu_allocator.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/fru_recurrence_kernels.h"
#include "harmonic/ops/fru_recurrence.h"
#include "harmonic/ops/ops.h"

namespace hm::nn {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Truncated normal std 0.1, cut at two standard deviations (TensorFlow's truncated_normal).
Tensor tn(const Shape& shape, Generator* gen) {
  Tensor t = zeros(shape);
  trunc_normal_(t, 0.0, 0.1, -0.2, 0.2, gen);
  return t;
}

}  // namespace

std::vector<double> fru_frequencies(int64_t K, double f_max, double f_min) {
  check(K >= 1, "fru_frequencies", "num_freqs must be >= 1, got {}", K);
  check_host_fits(K, sizeof(double), "fru_frequencies");  // (push_back would grow until killed)
  check(f_min > 0, "fru_frequencies", "f_min must be > 0, got {}", f_min);
  std::vector<double> f{0.0};
  if (K == 2) f.push_back(f_min);
  if (K > 2) {
    check(f_max > f_min, "fru_frequencies", "f_max must exceed f_min {}, got {}", f_min, f_max);
    const double ratio = std::pow(f_max / f_min, 1.0 / double(K - 2));
    for (int64_t i = 0; i < K - 1; ++i) f.push_back(f_min * std::pow(ratio, double(i)));
    f.back() = f_max;
  }
  return f;
}

// -- shared -----------------------------------------------------------------------------------
FourierStatRecurrent::FourierStatRecurrent(const std::string& type, int64_t in, int64_t channels, int64_t dims,
                                           int64_t r, int64_t units, bool fused_)
    : Module(type),
      input_size(in),
      num_channels(channels),
      channel_dims(dims),
      r_size(r),
      output_units(units),
      fused(fused_) {
  check(in > 0 && channels > 0 && dims > 0 && r > 0 && units > 0, type,
        "sizes must be positive: input {}, channels {}, dims {}, r {}, units {}", in, channels, dims, r, units);
  // weight_r (r, S) and weight_o (units, S) with S = channels * dims, before any buffer is built
  const int64_t state = checked_mul(channels, dims, type);
  check_host_fits(checked_mul(state, std::max(r, units), type), sizeof(float), type);
}

// After the subclass's own parameters: the registration order fixes the draws from gen.
void FourierStatRecurrent::register_weights(Generator* gen) {
  const int64_t S = state_size(), R = r_size, d = channel_dims;
  weight_r = register_parameter("weight_r", tn({R, S}, gen));
  bias_r = register_parameter("bias_r", zeros({R}));
  weight_phi = register_parameter("weight_phi", tn({d, input_size + R}, gen));
  bias_phi = register_parameter("bias_phi", zeros({d}));
  weight_o = register_parameter("weight_o", tn({output_units, S}, gen));
  bias_o = register_parameter("bias_o", zeros({output_units}));
}

Tensor FourierStatRecurrent::states_time_major(const Tensor& x, const Tensor& mu0, bool last_only) {
  const int64_t B = x.size(0), T = x.size(1), K = num_channels, d = channel_dims, S = K * d;
  Tensor coef = coefficients(T, x);    // (T, K)
  Tensor decays = decay_values(coef);  // (K)
  // A device without the fused kernels falls back to the composition.
  if (fused && (x.device().is_cpu() || fru_forward_kernel.cuda)) {
    // The input part of phi's pre-activation for all steps at once, then the fused op. One
    // input (pixel MNIST) is a broadcast multiply: as a k = 1 GEMM over T*B rows, BLAS took
    // longer than the whole recurrence (~0.5 s forward, ~1 s backward at B=256, T=784).
    Tensor w_x = narrow(weight_phi, 1, 0, input_size), w_pr = narrow(weight_phi, 1, input_size, r_size);
    Tensor xt = transpose(x, 0, 1);  // (T, B, in) -> px (T, B, d)
    Tensor px = input_size == 1 ? add(mul(xt, reshape(w_x, {d})), bias_phi) : linear(xt, w_x, bias_phi);
    return last_only ? fru_recurrence_last(px, weight_r, bias_r, w_pr, coef, decays, mu0)
                     : fru_recurrence(px, weight_r, bias_r, w_pr, coef, decays, mu0);
  }
  Tensor mu = mu0.defined() ? mu0 : zeros({B, S}, {.dtype = x.dtype(), .device = x.device()});
  Tensor m = reshape(decays, {K, 1});
  std::vector<Tensor> all;
  all.reserve(T);
  for (int64_t t = 0; t < T; ++t) {
    Tensor r = relu(linear(mu, weight_r, bias_r));                                  // (B, R)
    Tensor phi = relu(linear(cat({select(x, 1, t), r}, 1), weight_phi, bias_phi));  // (B, d)
    Tensor c = reshape(select(coef, 0, t), {K, 1});                                 // (K, 1)
    Tensor next = add(mul(reshape(mu, {B, K, d}), m), mul(unsqueeze(phi, 1), c));   // (B, K, d)
    mu = reshape(next, {B, S});
    all.push_back(mu);
  }
  return last_only ? mu : stack(all, 0);  // (B, S) or (T, B, S)
}

Tensor FourierStatRecurrent::states(const Tensor& x_in, const Tensor& mu0_in) {
  auto [x, mu0] = batched_inputs(x_in, mu0_in);
  Tensor mu = transpose(states_time_major(x, mu0), 0, 1);
  return x_in.dim() == 2 ? squeeze(mu, 0) : mu;
}

std::pair<Tensor, Tensor> FourierStatRecurrent::batched_inputs(const Tensor& x_in, const Tensor& mu0_in) const {
  const bool unbatched = x_in.dim() == 2;
  Tensor x = unbatched ? unsqueeze(x_in, 0) : x_in;
  HM_CHECK(x.dim() == 3 && x.size(2) == input_size && x.size(1) > 0, type_name(),
           "x must be (B, T, {}) or (T, {}), got {}", input_size, input_size, x_in.desc());
  Tensor mu0 = unbatched && mu0_in.defined() ? unsqueeze(mu0_in, 0) : mu0_in;
  if (mu0.defined())
    HM_CHECK(mu0.dim() == 2 && mu0.size(0) == x.size(0) && mu0.size(1) == state_size(), type_name(),
             "mu0 must be ({}, {}), got {}", x.size(0), state_size(), mu0_in.desc());
  return {x, mu0};
}

FRUOutput FourierStatRecurrent::forward(const Tensor& x_in, const Tensor& mu0_in) {
  auto [x, mu0] = batched_inputs(x_in, mu0_in);
  Tensor mu = states_time_major(x, mu0);                           // (T, B, S)
  Tensor o = transpose(relu(linear(mu, weight_o, bias_o)), 0, 1);  // (B, T, units)
  FRUOutput out{o, select(o, 1, x.size(1) - 1), select(mu, 0, x.size(1) - 1)};
  if (x_in.dim() == 2) out = {squeeze(out.output, 0), squeeze(out.last, 0), squeeze(out.mu_n, 0)};
  return out;
}

FRUOutput FourierStatRecurrent::forward_last(const Tensor& x_in, const Tensor& mu0_in) {
  auto [x, mu0] = batched_inputs(x_in, mu0_in);
  Tensor mu_n = states_time_major(x, mu0, true);       // (B, S)
  Tensor last = relu(linear(mu_n, weight_o, bias_o));  // (B, units)
  if (x_in.dim() == 2) return {Tensor(), squeeze(last, 0), squeeze(mu_n, 0)};
  return {Tensor(), last, mu_n};
}

// -- FRU --------------------------------------------------------------------------------------
FRU::FRU(int64_t in, FRUOptions opt)
    : FourierStatRecurrent("FRU", in, opt.num_freqs, opt.dims_per_freq, opt.r_size, opt.output_units, opt.fused),
      options(opt) {
  check(opt.seq_len > 0, "FRU", "seq_len must be positive, got {}", opt.seq_len);
  const int64_t K = opt.num_freqs;
  freqs =
      register_buffer("freqs", from_vector(fru_frequencies(K, opt.f_max, opt.f_min), {K}, {.dtype = DType::Float32}));
  std::vector<double> m(K, 1.0);
  if (opt.mask_f0 && K > 1) m[0] = 0.0;
  decay = register_buffer("decay", from_vector(m, {K}, {.dtype = DType::Float32}));
  theta = register_parameter("theta", tn({K}, opt.gen));
  register_weights(opt.gen);
}

Tensor FRU::coefficients(int64_t T, const Tensor& like) const {
  const int64_t K = num_channels;
  const double Tn = double(options.seq_len);
  // Frequencies from the options in double (the float32 buffer would put ~1e-4 rad of error
  // into 2 pi f t / T at f = 784).
  const std::vector<double> f = fru_frequencies(K, options.f_max, options.f_min);
  check_host_fits(checked_mul(T, K, "FRU"), sizeof(double), "FRU");
  std::vector<double> arg(T * K);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t k = 0; k < K; ++k) arg[t * K + k] = kTwoPi * f[k] * double(t + options.first_step) / Tn;
  Tensor a = device_constant(from_vector(arg, {T, K}, {.dtype = DType::Float64}).to(like.dtype()), like.device());
  return mul(cos(add(a, mul(theta, kTwoPi))), 1.0 / Tn);  // (T, K)
}

// -- SRU --------------------------------------------------------------------------------------
SRU::SRU(int64_t in, SRUOptions opt)
    : FourierStatRecurrent("SRU", in, int64_t(opt.decays.size()), opt.phi_size, opt.r_size, opt.output_units,
                           opt.fused),
      options(opt) {
  check(!opt.decays.empty(), "SRU", "decays must not be empty");
  decay = register_buffer("decay", from_vector(opt.decays, {num_channels}, {.dtype = DType::Float32}));
  register_weights(opt.gen);
}

Tensor SRU::coefficients(int64_t T, const Tensor& like) const {
  const Tensor one_minus = add(mul(decay_values(like), -1.0), 1.0);  // (K)
  return expand(reshape(one_minus, {1, num_channels}), {T, num_channels});
}

Tensor SRU::decay_values(const Tensor& like) const {
  return device_constant(from_vector(options.decays, {num_channels}, {.dtype = DType::Float64}).to(like.dtype()),
                         like.device());
}

// -- gradient inspection ----------------------------------------------------------------------
Tensor grads_wrt_initial_state(FourierStatRecurrent& model, const Tensor& x,
                               const std::function<Tensor(const Tensor& o, int64_t t)>& per_step_loss) {
  HM_CHECK(x.dim() == 3, "grads_wrt_initial_state", "x must be (B, T, in), got {}", x.desc());
  const int64_t B = x.size(0), T = x.size(1);
  Tensor mu0 = zeros({B, model.state_size()}, {.dtype = x.dtype(), .device = x.device()});
  mu0.requires_grad_(true);
  Tensor o = model.forward(x, mu0).output;
  std::vector<Tensor> rows;
  rows.reserve(T);
  for (int64_t t = 0; t < T; ++t) {
    mu0.zero_grad();
    Tensor loss = per_step_loss(o, t);
    HM_CHECK(loss.numel() == 1, "grads_wrt_initial_state", "per_step_loss must return a scalar, got {}", loss.desc());
    loss.backward({}, t + 1 < T);
    Tensor g = mu0.grad();
    rows.push_back(g.defined() ? sum(g, {0}) : zeros({model.state_size()}, {.dtype = x.dtype(), .device = x.device()}));
  }
  model.zero_grad();      // the per-step backward passes also filled the parameters' gradients
  return stack(rows, 0);  // (T, S)
}

Tensor grad_norms_per_step(const Tensor& g) {
  HM_CHECK(g.dim() == 2, "grad_norms_per_step", "grads must be (T, S), got {}", g.desc());
  Tensor a = abs(g);
  return stack({sum(a, {1}), sqrt(sum(square(g), {1})), amax(a, {1})}, 1);  // (T, 3)
}

}  // namespace hm::nn

namespace hm::nn {

SingleBiasLSTM::SingleBiasLSTM(int64_t in, int64_t hidden, Generator* gen) : Module("SingleBiasLSTM") {
  lstm = register_module(
      "lstm", std::make_shared<LSTM>(in + 1, hidden, RecurrentOptions{.bias = false, .batch_first = true}, gen));
}

RecurrentOutput SingleBiasLSTM::forward(const Tensor& x, const LSTMState& state) {
  HM_CHECK(x.dim() == 3, "SingleBiasLSTM", "x must be (B, T, in), got {}", x.desc());
  Tensor one = ones({x.size(0), x.size(1), 1}, {.dtype = x.dtype(), .device = x.device()});
  return lstm->forward(cat({x, one}, 2), state);
}

}  // namespace hm::nn

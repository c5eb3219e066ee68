// Recurrent layers: PyTorch parameter counts/names, values vs torch with literal weights,
// float64 gradchecks, batch_first/unbatched layouts, inter-layer dropout, errors.
#include <cmath>

#include "harmonic/nn/linear.h"
#include "harmonic/nn/recurrent.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

// The literal pattern of tests/reference/nn_recurrent_reference.py: ((k*mul) % mod) * 0.1 - off, float64.
Tensor lit(int64_t n, const Shape& shape, int64_t mul, int64_t mod, double off) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[k] = static_cast<double>((k * mul) % mod) * 0.1 - off;
  return from_vector(v, shape);
}

void set(const Tensor& p, const Tensor& value) {
  NoGradGuard g;
  Tensor(p).copy_(value);
}

// Sets layer 0 of a (float64) recurrent module to the reference weights for G gates.
void set_reference_weights(nn::Recurrent& m, int64_t gates) {
  const int64_t gh = gates * 2;
  set(m.weight_ih[0], lit(gh * 3, {gh, 3}, 7, 11, 0.5));
  set(m.weight_hh[0], lit(gh * 2, {gh, 2}, 5, 9, 0.4));
  set(m.bias_ih[0], lit(gh, {gh}, 3, 7, 0.3));
  set(m.bias_hh[0], lit(gh, {gh}, 2, 5, 0.2));
}

// All of a module's parameters after the given inputs, for gradcheck.
std::vector<Tensor> with_params(std::vector<Tensor> inputs, const nn::Module& m) {
  for (const Tensor& p : m.parameters()) inputs.push_back(p);
  return inputs;
}

}  // namespace

TEST_CASE("nn recurrent: parameter counts, names and init match PyTorch") {
  Generator gen(1);
  // sum(p.numel() for p in [*torch.nn.LSTM(1, 200).parameters(), *torch.nn.Linear(200, 10).parameters()])
  // = 164410 (4H*in + 4H*H + 2*4H = 162400, plus 2010). With a single bias vector per layer
  // (Keras-style) it would be 163610; PyTorch keeps bias_ih and bias_hh.
  nn::LSTM lstm(1, 200, {}, &gen);
  nn::Linear head(200, 10, true, &gen);
  CHECK(lstm.num_parameters() + head.num_parameters() == 164410);
  CHECK(lstm.num_parameters() == 162400);
  // torch.nn.RNN(3, 4): 36, torch.nn.GRU(3, 4): 108.
  CHECK(nn::RNN(3, 4).num_parameters() == 36);
  CHECK(nn::GRU(3, 4).num_parameters() == 108);
  CHECK(nn::LSTMCell(3, 4).num_parameters() == 4 * 4 * 3 + 4 * 4 * 4 + 2 * 16);
  CHECK(nn::RNNCell(3, 4, false).num_parameters() == 4 * 3 + 4 * 4);
  // [n for n, _ in torch.nn.LSTM(3, 4, num_layers=2).named_parameters()]
  nn::LSTM two(3, 4, {.num_layers = 2}, &gen);
  CHECK(names_of(two.named_parameters()) == std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                                                     "bias_hh_l0", "weight_ih_l1", "weight_hh_l1",
                                                                     "bias_ih_l1", "bias_hh_l1"});
  CHECK(two.weight_ih[1].shape() == Shape{16, 4});
  CHECK(names_of(nn::GRUCell(3, 4).named_parameters()) ==
        std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"});
  // Every parameter ~ U(+-1/sqrt(H)).
  const double bound = 1.0 / std::sqrt(200.0);
  for (const Tensor& p : lstm.parameters()) {
    double m = amax(abs(p.detach())).item<double>();
    CHECK(m <= bound);
    if (p.numel() > 1000) CHECK(m > 0.99 * bound);
  }
  CHECK(hm::std(lstm.weight_hh[0].detach()).item<double>() == doctest::Approx(bound / std::sqrt(3.0)).epsilon(0.01));
}

TEST_CASE("nn LSTM: values and gradient vs PyTorch with literal weights") {
  // Reference: tests/reference/nn_recurrent_reference.py (torch 1.13, float64): torch.nn.LSTM(3, 2) with the
  // lit() weights, x = lit(12, (2, 2, 3), 4, 13, 0.6), h0 = lit(4, (1,2,2), 3, 5, 0.2),
  // c0 = lit(4, (1,2,2), 2, 7, 0.3); out, (hn, cn) = m(x, (h0, c0)); (out.sum() + cn.sum()).backward().
  nn::LSTM m(3, 2);
  m.to(DType::Float64);
  set_reference_weights(m, 4);
  Tensor x = lit(12, {2, 2, 3}, 4, 13, 0.6);
  Tensor h0 = lit(4, {1, 2, 2}, 3, 5, 0.2), c0 = lit(4, {1, 2, 2}, 2, 7, 0.3);
  nn::RecurrentOutput r = m.forward(x, {h0, c0});
  CHECK(r.output.shape() == Shape{2, 2, 2});
  CHECK(allclose(r.output,
                 {-0.02457073695336581, -0.09566051446901844, 0.10675569282496299, -0.0018059895983706606,
                  0.06491241302900606, -0.10304814620017617, 0.14283919681576826, -0.06735775977101977},
                 1e-10, 1e-12));
  CHECK(allclose(r.h_n, {0.06491241302900606, -0.10304814620017617, 0.14283919681576826, -0.06735775977101977}, 1e-10,
                 1e-12));
  CHECK(allclose(r.c_n, {0.11475776867135029, -0.2036240343877677, 0.25491975641820697, -0.12765595071474792}, 1e-10,
                 1e-12));
  (sum(r.output) + sum(r.c_n)).backward();
  CHECK(allclose(m.weight_hh[0].grad(),
                 {-0.025406500451327158, 0.023605298299389364, 0.01703484150346761, -0.01573723135893266,
                  0.027869486157014338, -0.0036728700475832897, -0.0015212673361979245, 0.020363873377751876,
                  -0.14059221790519177, 0.11002082820401932, -0.06944435699076401, 0.0750711631160137,
                  0.003128301292506535, 0.006099364777052996, 0.0034213708165659407, 0.0019897586895185793},
                 1e-9, 1e-12));

  // One LSTMCell step with the same weights is the first step of the sequence
  // (torch.nn.LSTMCell(3, 2)(x[0], (h0[0], c0[0])) in the same snippet).
  nn::LSTMCell cell(3, 2);
  cell.to(DType::Float64);
  set(cell.weight_ih, m.weight_ih[0].detach());
  set(cell.weight_hh, m.weight_hh[0].detach());
  set(cell.bias_ih, m.bias_ih[0].detach());
  set(cell.bias_hh, m.bias_hh[0].detach());
  nn::LSTMState s = cell.forward(select(x, 0, 0), {select(h0, 0, 0), select(c0, 0, 0)});
  CHECK(allclose(s.h, {-0.02457073695336581, -0.09566051446901844, 0.10675569282496299, -0.0018059895983706606}, 1e-10,
                 1e-12));
  CHECK(allclose(s.c, {-0.04512454457879096, -0.19077505622001734, 0.1975693953438491, -0.003685699719661706}, 1e-10,
                 1e-12));
}

TEST_CASE("nn GRU / RNN: values vs PyTorch with literal weights") {
  // Same snippet: torch.nn.GRU(3, 2) and torch.nn.RNN(3, 2) with lit() weights, (x, h0) as above.
  Tensor x = lit(12, {2, 2, 3}, 4, 13, 0.6), h0 = lit(4, {1, 2, 2}, 3, 5, 0.2);
  nn::GRU gru(3, 2);
  gru.to(DType::Float64);
  set_reference_weights(gru, 3);
  CHECK(allclose(gru.forward(x, h0).output,
                 {-0.006374397414874555, -0.09313628135607455, 0.06043491499959536, 0.02242357529664124,
                  0.13026313598625633, -0.10894078780036841, 0.15473389572077892, -0.0664331229479527},
                 1e-10, 1e-12));
  nn::RNN rnn(3, 2);
  rnn.to(DType::Float64);
  set_reference_weights(rnn, 1);
  nn::RecurrentOutput r = rnn.forward(x, h0);
  CHECK(allclose(r.output,
                 {-0.18774620586828542, -0.29131261245159085, -0.6750698748386079, 0.3004370971476542,
                  -0.6550153267024625, 0.20511013927152338, -0.4461862185903185, 0.41580419028766186},
                 1e-10, 1e-12));
  CHECK_FALSE(r.c_n.defined());
  CHECK(allclose(r.h_n, reshape(select(r.output, 0, 1), {1, 2, 2})));
}

TEST_CASE("nn recurrent: float64 gradchecks of cells and stacks") {
  Generator gen(3);
  nn::LSTM lstm(2, 2, {.num_layers = 2}, &gen);
  lstm.to(DType::Float64);
  Tensor x = leaf64({3, 2, 2}, 1), h0 = leaf64({2, 2, 2}, 2, 0.5), c0 = leaf64({2, 2, 2}, 3, 0.5);
  CHECK(gradcheck(
      [&](const std::vector<Tensor>& in) {
        nn::RecurrentOutput r = lstm.forward(in[0], {in[1], in[2]});
        return cat({flatten(r.output), flatten(r.c_n)});
      },
      with_params({x, h0, c0}, lstm)));

  nn::GRU gru(2, 3, {.batch_first = true}, &gen);
  gru.to(DType::Float64);
  Tensor xb = leaf64({2, 3, 2}, 4);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return gru.forward(in[0]).output; }, with_params({xb}, gru)));

  nn::RNN rnn(2, 3, {.bias = false}, &gen);
  rnn.to(DType::Float64);
  Tensor h = leaf64({1, 2, 3}, 5, 0.5);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return rnn.forward(in[0], in[1]).output; },
                  with_params({x, h}, rnn)));

  nn::LSTMCell cell(3, 2, true, &gen);
  cell.to(DType::Float64);
  Tensor xc = leaf64({2, 3}, 6), hc = leaf64({2, 2}, 7), cc = leaf64({2, 2}, 8);
  CHECK(gradcheck(
      [&](const std::vector<Tensor>& in) {
        nn::LSTMState s = cell.forward(in[0], {in[1], in[2]});
        return cat({s.h, s.c});
      },
      with_params({xc, hc, cc}, cell)));
  nn::RNNCell rcell(3, 2, true, &gen);
  rcell.to(DType::Float64);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return rcell.forward(in[0], in[1]); },
                  with_params({xc, hc}, rcell)));
  nn::GRUCell gcell(3, 2, true, &gen);
  gcell.to(DType::Float64);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return gcell.forward(in[0], in[1]); },
                  with_params({xc, hc}, gcell)));
}

TEST_CASE("nn recurrent: layouts, zero default state, multi-layer, dropout, errors") {
  Generator gen(5);
  nn::LSTM seq(4, 3, {.num_layers = 2}, &gen);
  nn::LSTM bf(4, 3, {.num_layers = 2, .batch_first = true}, &gen);
  bf.load_state_dict(seq.state_dict());
  Tensor x = randn({5, 2, 4}, {}, &gen);  // (T, B, in)
  nn::RecurrentOutput a = seq.forward(x);
  CHECK(a.output.shape() == Shape{5, 2, 3});
  CHECK(a.h_n.shape() == Shape{2, 2, 3});
  CHECK(a.c_n.shape() == Shape{2, 2, 3});
  CHECK(allclose(select(a.h_n, 0, 1), select(a.output, 0, 4)));         // top layer's last h
  nn::RecurrentOutput b = bf.forward(transpose(x, 0, 1).contiguous());  // (B, T, in)
  CHECK(b.output.shape() == Shape{2, 5, 3});
  CHECK(allclose(transpose(b.output, 0, 1), a.output));
  CHECK(allclose(b.h_n, a.h_n));
  // Zero states given explicitly equal the default.
  Tensor z = zeros({2, 2, 3});
  CHECK(allclose(seq.forward(x, {z, z}).output, a.output, 0, 0));
  // Unbatched (T, in): states (L, H).
  nn::RecurrentOutput u = seq.forward(select(x, 1, 0));
  CHECK(u.output.shape() == Shape{5, 3});
  CHECK(u.h_n.shape() == Shape{2, 3});
  CHECK(allclose(u.output, select(a.output, 1, 0), 1e-5, 1e-6));
  // The cell run step by step equals the one-layer sequence module.
  nn::RNN one(4, 3, {}, &gen);
  nn::RNNCell cell(4, 3, true, &gen);
  cell.load_state_dict({{"weight_ih", one.weight_ih[0]},
                        {"weight_hh", one.weight_hh[0]},
                        {"bias_ih", one.bias_ih[0]},
                        {"bias_hh", one.bias_hh[0]}});
  Tensor h;
  for (int64_t t = 0; t < 5; ++t) h = cell.forward(select(x, 0, t), h);
  CHECK(allclose(h, select(one.forward(x).output, 0, 4), 1e-5, 1e-6));

  // Dropout between layers acts in training only.
  nn::LSTM drop(4, 3, {.num_layers = 2, .dropout = 0.5}, &gen);
  drop.load_state_dict(seq.state_dict());
  CHECK(amax(abs(drop.forward(x).output - a.output)).item<double>() > 1e-4);
  drop.eval();
  CHECK(allclose(drop.forward(x).output, a.output, 0, 0));

  CHECK(throws_with([&] { seq.forward(randn({5, 2, 3})); }, {"[LSTM]", "feature size 4", "(5, 2, 3)"}));
  CHECK(throws_with([&] { seq.forward(randn({5})); }, {"[LSTM]", "(5,)"}));
  CHECK(throws_with([&] { seq.forward(x, {zeros({1, 2, 3}), z}); }, {"[LSTM]", "h0", "(2, 2, 3)", "(1, 2, 3)"}));
  CHECK(throws_with([&] { cell.forward(randn({2, 5})); }, {"[RNNCell]", "(B, 4)", "(2, 5)"}));
  CHECK(throws_with([] { nn::GRU(3, 0); }, {"[GRU]", "hidden_size=0"}));
}

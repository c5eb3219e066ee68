// Fourier Recurrent Unit: the fused recurrence op (gradcheck in float64, fused == composed
// gradients), FRU/SRU parameter counts of the papers' pixel-MNIST models, the running-mean
// property of a single f = 0 frequency, and the gradient-inspection helper.
#include <cmath>
#include <limits>
#include <utility>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/nn/fru.h"
#include "harmonic/nn/linear.h"
#include "harmonic/ops/fru_recurrence.h"
#include "tests/fru_twins.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

Tensor f64(const std::vector<double>& v) { return from_vector(v, {int64_t(v.size())}, {.dtype = DType::Float64}); }

// Runs fru_recurrence on leaves and gradchecks every differentiable input.
void gradcheck_op(int64_t T, int64_t B, int64_t K, int64_t d, int64_t R, const std::vector<double>& decay,
                  uint64_t seed) {
  Tensor px = leaf64({T, B, d}, seed, 0.5), w_r = leaf64({R, K * d}, seed + 1, 0.3), b_r = leaf64({R}, seed + 2, 0.2);
  Tensor w_pr = leaf64({d, R}, seed + 3, 0.3), coef = leaf64({T, K}, seed + 4, 0.2);
  Tensor mu0 = leaf64({B, K * d}, seed + 5, 0.5);
  Tensor dec = f64(decay);
  CHECK(gradcheck(
      [&](const std::vector<Tensor>& in) { return fru_recurrence(in[0], in[1], in[2], in[3], in[4], dec, in[5]); },
      {px, w_r, b_r, w_pr, coef, mu0}));
}

// Two identical float64 models, one fused and one composed.
// The input, initial-state and every parameter gradient of two equivalent modules agree.
void check_same_grads(const Tensor& x1, const Tensor& m1, nn::Module& a, const Tensor& x2, const Tensor& m2,
                      nn::Module& b) {
  CHECK(allclose(x1.grad(), x2.grad(), 1e-9, 1e-12));
  CHECK(allclose(m1.grad(), m2.grad(), 1e-9, 1e-12));
  auto p1 = a.named_parameters(), p2 = b.named_parameters();
  REQUIRE(p1.size() == p2.size());
  for (size_t i = 0; i < p1.size(); ++i) {
    INFO(p1[i].first);
    REQUIRE(p1[i].second.grad().defined());
    CHECK(allclose(p1[i].second.grad(), p2[i].second.grad(), 1e-9, 1e-12));
  }
}

// Loss = sum(o * w) + sum(mu_n * v); compares outputs and every gradient (params, x, mu0).
template <class M>
void check_fused_equals_composed(M& fused, M& composed, int64_t B, int64_t T) {
  Tensor w = leaf64({B, T, fused.output_units}, 91).detach();
  Tensor v = leaf64({B, fused.state_size()}, 92).detach();
  Tensor x1 = leaf64({B, T, fused.input_size}, 93), x2 = leaf64({B, T, fused.input_size}, 93);
  Tensor m1 = leaf64({B, fused.state_size()}, 94, 0.1), m2 = leaf64({B, fused.state_size()}, 94, 0.1);
  auto o1 = fused.forward(x1, m1), o2 = composed.forward(x2, m2);
  CHECK(allclose(o1.output, o2.output, 1e-10, 1e-12));
  CHECK(allclose(o1.last, o2.last, 1e-10, 1e-12));
  CHECK(allclose(o1.mu_n, o2.mu_n, 1e-10, 1e-12));
  add(sum(mul(o1.output, w)), sum(mul(o1.mu_n, v))).backward();
  add(sum(mul(o2.output, w)), sum(mul(o2.mu_n, v))).backward();
  check_same_grads(x1, m1, fused, x2, m2, composed);
}

}  // namespace

TEST_CASE("fru_recurrence gradcheck: short and long sequences, f=0 mask on and off") {
  gradcheck_op(3, 2, 3, 2, 3, {0.0, 1.0, 1.0}, 1);               // mask on
  gradcheck_op(4, 2, 3, 2, 3, {1.0, 1.0, 1.0}, 11);              // mask off
  gradcheck_op(5, 1, 1, 3, 2, {1.0}, 21);                        // K = 1
  gradcheck_op(3, 2, 5, 3, 4, {0.0, 0.25, 0.5, 0.9, 0.99}, 31);  // SRU-style decays
  gradcheck_op(50, 2, 3, 2, 3, {0.0, 1.0, 1.0}, 41);
  gradcheck_op(50, 2, 3, 2, 3, {1.0, 1.0, 1.0}, 51);
}

TEST_CASE("fru_recurrence errors name the function and the shapes") {
  Tensor px = zeros({4, 2, 3}), w_r = zeros({5, 6}), b_r = zeros({5}), w_pr = zeros({3, 5}), coef = zeros({4, 2});
  Tensor dec = ones({2});
  CHECK_NOTHROW(fru_recurrence(px, w_r, b_r, w_pr, coef, dec));
  CHECK(throws_with(
      [&] {
        fru_recurrence(px, zeros({5, 7}), b_r, w_pr, coef, dec);
      },
      {"fru_recurrence", "w_r", "(5, 6)"}));
  CHECK(throws_with([&] { fru_recurrence(px, w_r, b_r, w_pr, zeros({3, 2}), dec); }, {"fru_recurrence", "coef"}));
  CHECK(throws_with(
      [&] {
        fru_recurrence(zeros({4, 3}), w_r, b_r, w_pr, coef, dec);
      },
      {"fru_recurrence", "(T, B, d)"}));
  CHECK(throws_with([&] { fru_recurrence(px, w_r.to(DType::Float64), b_r, w_pr, coef, dec); },
                    {"fru_recurrence", "float64"}));
  CHECK(throws_with([&] { fru_recurrence(px, w_r, b_r, w_pr, coef, dec, zeros({3, 6})); }, {"fru_recurrence", "mu0"}));
}

TEST_CASE("FRU fused == composed (outputs and all gradients), mask on and off") {
  for (bool mask : {true, false}) {
    nn::FRUOptions opt{
        .num_freqs = 4, .dims_per_freq = 3, .r_size = 5, .output_units = 6, .f_max = 7, .seq_len = 9, .mask_f0 = mask};
    auto [a, b] = twin<nn::FRU>(2, opt);
    check_fused_equals_composed(*a, *b, 3, 9);
  }
}

TEST_CASE("SRU fused == composed") {
  nn::SRUOptions opt{.decays = {0.0, 0.5, 0.99}, .phi_size = 4, .r_size = 3, .output_units = 5};
  auto [a, b] = twin<nn::SRU>(2, opt);
  check_fused_equals_composed(*a, *b, 2, 6);
}

TEST_CASE("FRU with one f=0 frequency and theta = 0 keeps the running mean of phi") {
  for (bool fused : {true, false}) {
    Generator g(3);
    nn::FRU m(2, {.num_freqs = 1,
                  .dims_per_freq = 4,
                  .r_size = 3,
                  .output_units = 5,
                  .f_max = 10,
                  .seq_len = 6,
                  .mask_f0 = true,
                  .fused = fused,
                  .gen = &g});
    m.to(DType::Float64);
    {
      NoGradGuard ng;
      Tensor(m.theta).copy_(zeros({1}, {.dtype = DType::Float64}));
    }
    Tensor x = leaf64({2, 6, 2}, 5).detach();
    Tensor mu = m.states(x);  // (B, T, d)
    // mu_t = mu_{t-1} + phi_t / T, i.e. (sum of phi up to t) / T, with phi from the previous state.
    Tensor prev = zeros({2, 4}, {.dtype = DType::Float64}), acc = zeros({2, 4}, {.dtype = DType::Float64});
    for (int64_t t = 0; t < 6; ++t) {
      Tensor r = relu(linear(prev, m.weight_r, m.bias_r));
      Tensor phi = relu(linear(cat({select(x, 1, t), r}, 1), m.weight_phi, m.bias_phi));
      acc = add(acc, phi);
      prev = select(mu, 1, t);
      CHECK(allclose(prev, mul(acc, 1.0 / 6.0), 1e-12, 1e-14));
    }
  }
}

TEST_CASE("FRU frequencies and parameter counts of the pixel-MNIST classifiers") {
  CHECK(nn::fru_frequencies(1, 784) == std::vector<double>{0.0});
  auto f = nn::fru_frequencies(60, 784);
  REQUIRE(f.size() == 60);
  CHECK(f[0] == 0.0);
  CHECK(f[1] == doctest::Approx(0.25));
  CHECK(f[59] == doctest::Approx(784));
  CHECK(f[30] / f[29] == doctest::Approx(f[2] / f[1]));
  // Appendix D's ranges move the low end: [0] + geometric f_min .. f_max.
  const std::vector<double> ranged = nn::fru_frequencies(4, 8.0, 2.0);
  REQUIRE(ranged.size() == 4);
  CHECK(ranged[1] == 2.0);
  CHECK(ranged[2] == doctest::Approx(4.0));
  CHECK(ranged[3] == 8.0);
  CHECK(nn::fru_frequencies(2, 8.0, 3.0) == std::vector<double>{0.0, 3.0});
  CHECK(throws_with([] { nn::fru_frequencies(4, 2.0, 2.0); }, {"[fru_frequencies]", "f_max must exceed"}));
  // FRU_{K,d} on 784 pixels + Linear(200, 10): W_r (60, K d) + b_r, W_phi (d, 1 + 60) + b_phi,
  // W_o (200, K d) + b_o, theta (K) and the classifier.
  nn::Linear head(200, 10);
  nn::FRU fru60(1, {.num_freqs = 60, .dims_per_freq = 10});
  CHECK(fru60.num_parameters() + head.num_parameters() == 158950);
  nn::FRU fru40(1, {.num_freqs = 40, .dims_per_freq = 10});
  CHECK(fru40.num_parameters() + head.num_parameters() == 106930);
  // SRU: 5 decays x phi 200 = 1000 state dims, r 60, o 200.
  nn::SRU sru(1);
  CHECK(sru.num_parameters() + head.num_parameters() == 274670);
  CHECK(fru60.decay.to_vector()[0] == 0.0);
  CHECK(nn::FRU(1, {.num_freqs = 3, .mask_f0 = false}).decay.to_vector() == std::vector<double>{1, 1, 1});
}

TEST_CASE("grads_wrt_initial_state: shapes, and each row is d loss_t / d mu0") {
  Generator g(4);
  nn::FRU m(1,
            {.num_freqs = 3, .dims_per_freq = 2, .r_size = 4, .output_units = 3, .f_max = 5, .seq_len = 8, .gen = &g});
  m.to(DType::Float64);
  Tensor x = leaf64({2, 8, 1}, 6).detach();
  auto loss = [](const Tensor& o, int64_t t) { return sum(square(select(o, 1, t))); };
  Tensor grads = nn::grads_wrt_initial_state(m, x, loss);
  CHECK(grads.shape() == Shape{8, 6});
  Tensor norms = nn::grad_norms_per_step(grads);
  CHECK(norms.shape() == Shape{8, 3});
  // Row 5 by hand.
  Tensor mu0 = zeros({2, 6}, {.dtype = DType::Float64}).requires_grad_(true);
  loss(m.forward(x, mu0).output, 5).backward();
  CHECK(allclose(select(grads, 0, 5), sum(mu0.grad(), {0}), 1e-12, 1e-14));
  auto n = norms.to_vector();
  CHECK(n[5 * 3 + 0] >= n[5 * 3 + 1]);  // L1 >= L2 >= Linf
  CHECK(n[5 * 3 + 1] >= n[5 * 3 + 2]);
}

TEST_CASE("SingleBiasLSTM: the paper's LSTM-200 count and the bias column acts as a bias") {
  nn::Linear head(200, 10);
  nn::SingleBiasLSTM big(1, 200);
  CHECK(big.num_parameters() + head.num_parameters() == 163610);
  Generator g(2);
  nn::SingleBiasLSTM m(2, 3, &g);
  m.to(DType::Float64);
  Tensor x = leaf64({2, 4, 2}, 8).detach();
  auto out = m.forward(x);
  CHECK(out.output.shape() == Shape{2, 4, 3});
  // Same as lstm_cell steps with w_ih's last column as b_ih.
  Tensor w = m.lstm->weight_ih[0];
  Tensor w_x = narrow(w, 1, 0, 2), b = select(w, 1, 2);
  nn::LSTMState s{zeros({2, 3}, {.dtype = DType::Float64}), zeros({2, 3}, {.dtype = DType::Float64})};
  for (int64_t t = 0; t < 4; ++t) s = nn::lstm_cell(select(x, 1, t), s, w_x, m.lstm->weight_hh[0], b);
  CHECK(allclose(select(out.output, 1, 3), s.h));
}

TEST_CASE("FRU first step: mu_0 = cos(2 pi f (first_step)/T + 2 pi theta)/T phi_0") {
  for (int64_t first : {0, 1}) {
    for (bool fused : {true, false}) {
      Generator g(9);
      nn::FRU m(2, {.num_freqs = 2,
                    .dims_per_freq = 3,
                    .r_size = 4,
                    .output_units = 2,
                    .f_max = 1,
                    .seq_len = 4,
                    .mask_f0 = false,
                    .first_step = first,
                    .fused = fused,
                    .gen = &g});
      m.to(DType::Float64);
      Tensor x = leaf64({2, 4, 2}, 10).detach();
      Tensor mu0 = select(m.states(x), 1, 0);  // (B, 2 * 3); the state before is 0, so r_0 = relu(b_r) = 0
      Tensor phi = relu(linear(select(x, 1, 0), narrow(m.weight_phi, 1, 0, 2), m.bias_phi));
      const double th1 = m.theta.to_vector()[1], pi = 3.14159265358979323846;
      const double c1 = std::cos(2 * pi * 0.25 * double(first) / 4 + 2 * pi * th1) / 4;
      CHECK(allclose(narrow(mu0, 1, 3, 3), mul(phi, c1), 1e-12, 1e-14));
    }
  }
}

TEST_CASE("fru_recurrence: non-contiguous inputs and float32") {
  // px given batch-first and transposed, w_r given transposed: the op makes them contiguous.
  Tensor pxb = leaf64({2, 5, 3}, 61, 0.5), w_rt = leaf64({6, 4}, 62, 0.3), b_r = leaf64({4}, 63, 0.2);
  Tensor w_pr = leaf64({3, 4}, 64, 0.3), coef = leaf64({5, 2}, 65, 0.2);
  Tensor dec = f64({0.0, 1.0});
  CHECK(gradcheck(
      [&](const std::vector<Tensor>& in) {
        return fru_recurrence(transpose(in[0], 0, 1), transpose(in[1], 0, 1), in[2], in[3], in[4], dec);
      },
      {pxb, w_rt, b_r, w_pr, coef}));
  // float32 agrees with float64.
  Tensor mu64 = fru_recurrence(transpose(pxb, 0, 1), transpose(w_rt, 0, 1), b_r, w_pr, coef, dec);
  auto f32 = [](const Tensor& t) { return t.detach().to(DType::Float32); };
  Tensor mu32 = fru_recurrence(transpose(f32(pxb), 0, 1), transpose(f32(w_rt), 0, 1), f32(b_r), f32(w_pr), f32(coef),
                               dec.to(DType::Float32));
  CHECK(mu32.dtype() == DType::Float32);
  CHECK(allclose(mu32.to(DType::Float64), mu64.detach(), 1e-4, 1e-5));
}

namespace {

// fru_recurrence_last against the last step of fru_recurrence: values and every gradient.
void check_last_equals_select(int64_t T, int64_t B, int64_t K, int64_t d, int64_t R, const std::vector<double>& decay,
                              uint64_t seed) {
  auto leaves = [&] {
    return std::vector<Tensor>{leaf64({T, B, d}, seed, 0.5),  leaf64({R, K * d}, seed + 1, 0.3),
                               leaf64({R}, seed + 2, 0.2),    leaf64({d, R}, seed + 3, 0.3),
                               leaf64({T, K}, seed + 4, 0.2), leaf64({B, K * d}, seed + 5, 0.5)};
  };
  std::vector<Tensor> a = leaves(), b = leaves();
  Tensor dec = f64(decay), w = leaf64({B, K * d}, seed + 6).detach();
  Tensor last = fru_recurrence_last(a[0], a[1], a[2], a[3], a[4], dec, a[5]);
  Tensor full = select(fru_recurrence(b[0], b[1], b[2], b[3], b[4], dec, b[5]), 0, T - 1);
  REQUIRE(last.shape() == Shape{B, K * d});
  CHECK(allclose(last, full, 1e-12, 1e-13));
  sum(mul(last, w)).backward();
  sum(mul(full, w)).backward();
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("input " << i);
    CHECK(allclose(a[i].grad(), b[i].grad(), 1e-10, 1e-12));
  }
}

}  // namespace

TEST_CASE("fru_recurrence_last: gradcheck and equal to the last step of fru_recurrence") {
  Tensor px = leaf64({6, 2, 2}, 71, 0.5), w_r = leaf64({3, 6}, 72, 0.3), b_r = leaf64({3}, 73, 0.2);
  Tensor w_pr = leaf64({2, 3}, 74, 0.3), coef = leaf64({6, 3}, 75, 0.2), mu0 = leaf64({2, 6}, 76, 0.5);
  for (const std::vector<double>& decay : {std::vector<double>{0.0, 1.0, 1.0}, {0.5, 0.9, 0.99}}) {
    Tensor dec = f64(decay);
    CHECK(gradcheck(
        [&](const std::vector<Tensor>& in) {
          return fru_recurrence_last(in[0], in[1], in[2], in[3], in[4], dec, in[5]);
        },
        {px, w_r, b_r, w_pr, coef, mu0}));
  }
  check_last_equals_select(7, 3, 4, 2, 5, {0.0, 1.0, 1.0, 1.0}, 81);
  check_last_equals_select(9, 2, 5, 3, 4, {0.0, 0.25, 0.5, 0.9, 0.99}, 82);
  check_last_equals_select(1, 2, 2, 2, 3, {0.0, 1.0}, 83);  // T = 1: the one step is the last
  CHECK(throws_with(
      [&] {
        fru_recurrence_last(px, w_r, b_r, w_pr, coef, f64({0.0, 1.0, 1.0}), zeros({3, 6}));
      },
      {"fru_recurrence", "mu0"}));
}

TEST_CASE("FRU/SRU forward_last == forward's last step (outputs and all gradients)") {
  auto compare = [](auto& fused, auto& composed, int64_t B, int64_t T) {
    Tensor w = leaf64({B, fused.output_units}, 95).detach(), v = leaf64({B, fused.state_size()}, 96).detach();
    Tensor x1 = leaf64({B, T, fused.input_size}, 97), x2 = leaf64({B, T, fused.input_size}, 97);
    Tensor m1 = leaf64({B, fused.state_size()}, 98, 0.1), m2 = leaf64({B, fused.state_size()}, 98, 0.1);
    auto o1 = fused.forward_last(x1, m1), o2 = composed.forward(x2, m2);
    CHECK_FALSE(o1.output.defined());
    CHECK(allclose(o1.last, o2.last, 1e-10, 1e-12));
    CHECK(allclose(o1.mu_n, o2.mu_n, 1e-10, 1e-12));
    add(sum(mul(o1.last, w)), sum(mul(o1.mu_n, v))).backward();
    add(sum(mul(o2.last, w)), sum(mul(o2.mu_n, v))).backward();
    check_same_grads(x1, m1, fused, x2, m2, composed);
  };
  for (bool mask : {true, false}) {
    nn::FRUOptions opt{
        .num_freqs = 4, .dims_per_freq = 3, .r_size = 5, .output_units = 6, .f_max = 7, .seq_len = 9, .mask_f0 = mask};
    auto [a, b] = twin<nn::FRU>(1, opt);  // one input: the broadcast input projection
    compare(*a, *b, 3, 9);
    auto [c, e] = twin<nn::FRU>(2, opt);
    compare(*c, *e, 2, 5);
  }
  nn::SRUOptions sopt{.decays = {0.0, 0.5, 0.99}, .phi_size = 4, .r_size = 3, .output_units = 5};
  auto [s1, s2] = twin<nn::SRU>(2, sopt);
  compare(*s1, *s2, 2, 6);
  // Unbatched input: (T, in) -> last (units), mu_n (K*d).
  auto [u1, u2] = twin<nn::FRU>(1, nn::FRUOptions{.num_freqs = 3, .dims_per_freq = 2, .r_size = 4, .output_units = 5});
  Tensor xu = leaf64({6, 1}, 99);
  auto ou = u1->forward_last(xu);
  CHECK(ou.last.shape() == Shape{5});
  CHECK(allclose(ou.last, u2->forward(xu).last, 1e-10, 1e-12));
}

TEST_CASE("fru_recurrence float32 over a long sequence stays close to float64 (values and gradients)") {
  // The kernels keep running sums over time (z = mu w_r^T, and their adjoints): check they do
  // not drift at T = 300 against the same inputs in float64.
  const int64_t T = 300, B = 3, K = 6, d = 2, R = 4;
  std::vector<Tensor> in64{leaf64({T, B, d}, 111, 0.5), leaf64({R, K * d}, 112, 0.3), leaf64({R}, 113, 0.2),
                           leaf64({d, R}, 114, 0.3),    leaf64({T, K}, 115, 0.2),     leaf64({B, K * d}, 116, 0.5)};
  Tensor dec = f64({0.0, 1.0, 1.0, 1.0, 1.0, 1.0});
  for (bool last : {false, true}) {
    const FruPrecisions r = fru_recurrence_in_both_precisions(in64, dec, last);
    CHECK(allclose(r.m32, r.m64, 1e-4, 1e-5));
    for (size_t i = 0; i < in64.size(); ++i) {
      INFO("last " << last << " input " << i);
      CHECK(allclose(r.g32[i], r.g64[i], 1e-3, 1e-3 * amax(abs(r.g64[i])).item<double>()));
    }
  }
}

TEST_CASE("fru_recurrence: a NaN input propagates as through torch.relu, on the row loops and the GEMM path") {
  // d, R small: the per-row loops; d 35, R 60 with two decays: G*d*R > 4096, the GEMM path.
  for (const auto& [d_in, R_in] : {std::pair<int64_t, int64_t>{3, 4}, {35, 60}}) {
    const int64_t d = d_in, R = R_in;  // plain copies: clang 14 cannot capture bindings in INFO's lambda
    const int64_t T = 4, B = 2, K = 2;
    Tensor px = zeros({T, B, d}, {.dtype = DType::Float64});
    px.data<double>()[(1 * B + 0) * d + 2] = std::numeric_limits<double>::quiet_NaN();  // step 1, row 0
    const Tensor w_r = full({R, K * d}, 0.01, {.dtype = DType::Float64});
    const Tensor b_r = full({R}, 0.1, {.dtype = DType::Float64});
    const Tensor w_pr = full({d, R}, 0.1, {.dtype = DType::Float64});
    const Tensor coef = full({T, K}, 0.5, {.dtype = DType::Float64});
    const Tensor decay = from_vector(std::vector<double>{0.0, 0.9}, {K}, {.dtype = DType::Float64});
    const Tensor mu = fru_recurrence(px, w_r, b_r, w_pr, coef, decay);  // (T, B, K*d)
    const std::vector<double> v = mu.to_vector();
    auto row_has_nan = [&](int64_t t, int64_t b) {
      for (int64_t j = 0; j < K * d; ++j)
        if (std::isnan(v[static_cast<size_t>((t * B + b) * K * d + j)])) return true;
      return false;
    };
    INFO("d ", d, " R ", R);
    CHECK_FALSE(row_has_nan(0, 0));
    CHECK(row_has_nan(1, 0));  // relu(NaN) = NaN, not 0
    CHECK(row_has_nan(3, 0));  // and it stays in the state
    CHECK_FALSE(row_has_nan(3, 1));  // the other row is untouched
  }
}

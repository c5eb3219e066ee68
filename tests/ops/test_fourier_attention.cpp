// Fused FourierFormer attention (ops/fourier_attention.h), its MultiheadAttention kernel
// (nn/fourier_score.h) and the head-redundancy metric.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <cmath>
#include <doctest/doctest.h>
#include <numbers>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/nn/attention.h"
#include "harmonic/nn/attention_metrics.h"
#include "harmonic/nn/fourier_score.h"
#include "harmonic/ops/cpu/sinc_math.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_attention_kernels.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/fru_recurrence.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

namespace {

// The composed reference: materialised differences, masked softmax, optional dropout, @ v.
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, int64_t p,
                 const FourierAttentionMask& m = {}, double drop = 0.0, uint64_t seed = 0) {
  Tensor logits = fourier_attention_logits_reference(q, k, R, p);
  Tensor a = nn::masked_softmax(logits, {.causal = m.causal, .key_padding_mask = m.key_padding_mask});
  if (drop > 0) {
    Generator gen(seed);
    a = dropout(a, drop, true, &gen);
  }
  return matmul(a, v);
}

Tensor r_leaf(std::vector<double> values, const Shape& shape) {
  return from_vector(values, shape, {.dtype = DType::Float64}).requires_grad_(true);
}

bool all_finite(const Tensor& t) {
  for (double x : t.to_vector())
    if (!std::isfinite(x)) return false;
  return true;
}

// The paper's kernel written out for any p: K_ij = prod_d sinc(R_d (q_id - k_jd))^p (signed for
// odd p), 0 where masked, A = K / (sum_j K + eps) (0 in fully masked rows), then dropout and @ v.
Tensor signed_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, int64_t p,
                        const FourierAttentionMask& m = {}, double eps = 0.0) {
  Tensor x = mul(sub(unsqueeze(q, 3), unsqueeze(k, 2)), R);  // (B, H, Nq, Nk, D)
  Tensor s = div(sin(x), x);
  Tensor kern = ones_like(select(s, -1, 0));
  for (int64_t d = 0; d < q.size(3); ++d) kern = mul(kern, pow(select(s, -1, d), static_cast<double>(p)));
  // The masked form of nn::masked_softmax, applied to kernel values: blocked -> 0.
  Tensor blocked =
      eq(nn::masked_softmax(zeros_like(kern), {.causal = m.causal, .key_padding_mask = m.key_padding_mask}), 0.0);
  kern = masked_fill(kern, blocked, 0.0);
  Tensor z = add(sum(kern, {-1}, true), eps);
  Tensor a = masked_fill(div(kern, masked_fill(z, eq(z, 0.0), 1.0)), eq(z, 0.0), 0.0);
  return matmul(a, v);
}

}  // namespace

TEST_CASE("fourier_attention matches the composed reference (p, R, masks, dtypes)") {
  Tensor q = leaf64({2, 2, 4, 3}, 1, 0.5).detach(), k = leaf64({2, 2, 5, 3}, 2, 0.5).detach();
  Tensor v = leaf64({2, 2, 5, 2}, 3).detach();
  Tensor pad = bool_mask({0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5});  // batch 1: every key padded
  for (int64_t p : {2, 4, 6})
    for (Tensor R :
         {scalar_tensor(1.5, {.dtype = DType::Float64}), tensor({0.5, 2.0, 1.0}, {3}, {.dtype = DType::Float64})})
      for (FourierAttentionMask m :
           {FourierAttentionMask{}, FourierAttentionMask{.causal = true}, FourierAttentionMask{.key_padding_mask = pad},
            FourierAttentionMask{.causal = true, .key_padding_mask = pad}}) {
        CAPTURE(p);
        CHECK(allclose(fourier_attention(q, k, v, R, p, m), reference(q, k, v, R, p, m), 1e-10, 1e-12));
        Tensor out32 = fourier_attention(q.to(DType::Float32), k.to(DType::Float32), v.to(DType::Float32),
                                         R.to(DType::Float32), p, m);
        CHECK(out32.dtype() == DType::Float32);
        CHECK(allclose(out32.to(DType::Float64), reference(q, k, v, R, p, m), 1e-4, 1e-5));
      }
  // Non-contiguous q (a transposed view) and causal with Nq > Nk (early rows see no key).
  Tensor qt = transpose(leaf64({2, 2, 3, 6}, 4, 0.5).detach(), 2, 3);  // (2, 2, 6, 3)
  Tensor R = scalar_tensor(2.0, {.dtype = DType::Float64});
  CHECK(allclose(fourier_attention(qt, k, v, R, 4, {.causal = true}), reference(qt, k, v, R, 4, {.causal = true}),
                 1e-10, 1e-12));
}

TEST_CASE("fourier_attention with eps: A = K / (sum K + eps), as the authors' code normalises") {
  Tensor q = leaf64({2, 2, 4, 3}, 1, 0.5).detach(), k = leaf64({2, 2, 5, 3}, 2, 0.5).detach();
  Tensor v = leaf64({2, 2, 5, 2}, 3).detach();
  Tensor R = tensor({0.5, 2.0, 1.0}, {3}, {.dtype = DType::Float64});
  Tensor pad = bool_mask({0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5});
  // eps 0.3 is of the order of a row's sum of K: the weights then sum to visibly less than one.
  for (double eps : {1e-6, 0.3})
    for (int64_t p : {4, 3})
      for (bool recompute : {false, true}) {
        CAPTURE(eps);
        CAPTURE(p);
        const FourierAttentionMask m{.causal = true, .key_padding_mask = pad};
        CHECK(allclose(fourier_attention(q, k, v, R, p, m, 0.0, false, nullptr, recompute, eps),
                       signed_reference(q, k, v, R, p, m, eps), 1e-10, 1e-12));
      }
  Tensor ones_v = ones({2, 2, 5, 1}, {.dtype = DType::Float64});
  const Tensor row_sums = fourier_attention(q, k, ones_v, R, 4, {}, 0.0, false, nullptr, false, 0.3);
  CHECK(amax(row_sums).item<double>() < 0.99);
  // Gradients through the eps denominator, saved A and recomputed from lse alike.
  for (bool recompute : {false, true}) {
    auto f = [&](const std::vector<Tensor>& x) {
      return fourier_attention(x[0], x[1], x[2], x[3], 4, {.causal = true}, 0.0, false, nullptr, recompute, 0.3);
    };
    CHECK(gradcheck(f, {leaf64({1, 2, 3, 2}, 63, 0.5), leaf64({1, 2, 4, 2}, 64, 0.5), leaf64({1, 2, 4, 2}, 65),
                        r_leaf({3.5, 3.0}, {2})}));
  }
  CHECK(throws_with([&] { fourier_attention(q, k, v, R, 4, {}, 0.0, false, nullptr, false, -1.0); },
                    {"[fourier_attention]", "eps must be finite and >= 0, got -1"}));
}

TEST_CASE("FourierScore with a learned log R: R = exp of the parameter log_R, which trains") {
  nn::FourierScore score(4, nn::FourierKernelOptions{.r_init = 2.0, .r_per_dim = true, .log_r = true});
  CHECK(!score.R.defined());
  REQUIRE(score.log_R.defined());
  CHECK(score.named_parameters().size() == 1);
  CHECK(score.named_parameters()[0].first == "log_R");
  CHECK(allclose(score.bandwidth(), full({4}, 2.0), 1e-6, 1e-7));
  Tensor q = leaf64({1, 1, 3, 4}, 7, 0.5).to(DType::Float32), k = leaf64({1, 1, 3, 4}, 8, 0.5).to(DType::Float32);
  Tensor v = leaf64({1, 1, 3, 4}, 9).to(DType::Float32);
  sum(score.attend(q, k, v, {.causal = true}, 0.0, false, nullptr)).backward();
  CHECK(score.log_R.grad().defined());
  CHECK(throws_with([] { nn::FourierScore(4, nn::FourierKernelOptions{.r_init = 0.0, .log_r = true}); },
                    {"[FourierScore]", "log R needs r_init > 0"}));
}

TEST_CASE("fourier_attention rows sum to one, fully masked rows give zeros") {
  Tensor q = leaf64({2, 3, 4, 5}, 5).detach(), k = leaf64({2, 3, 6, 5}, 6).detach();
  Tensor ones_v = ones({2, 3, 6, 1}, {.dtype = DType::Float64});  // out = row sums of A
  Tensor pad = bool_mask({0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 6});
  Tensor s =
      fourier_attention(q, k, ones_v, scalar_tensor(2.0, {.dtype = DType::Float64}), 4, {.key_padding_mask = pad});
  std::vector<double> expected(2 * 3 * 4, 1.0);
  std::fill(expected.begin() + 12, expected.end(), 0.0);
  CHECK(allclose(s, from_vector(expected, {2, 3, 4, 1}, {.dtype = DType::Float64}), 1e-12, 1e-12));
  // D = 64 with R = 4: the product of the sinc^4 factors underflows in float32, the log form does not.
  Tensor q32 = randn({1, 1, 3, 64}), k32 = randn({1, 1, 4, 64});
  Tensor s32 = fourier_attention(q32, k32, ones({1, 1, 4, 1}), scalar_tensor(4.0), 4);
  CHECK(allclose(s32.to(DType::Float64), std::vector<double>(3, 1.0), 1e-5, 1e-5));
}

TEST_CASE("fourier_attention gradcheck (float64): q, k, v, scalar and vector R, p, masks") {
  Tensor pad = bool_mask({0, 0, 1, 0, 1, 1, 1, 1}, {2, 4});  // batch 1 fully padded
  auto qk = [](uint64_t s) {
    return std::vector<Tensor>{leaf64({2, 1, 3, 3}, s, 0.4), leaf64({2, 1, 4, 3}, s + 1, 0.4),
                               leaf64({2, 1, 4, 2}, s + 2)};
  };
  for (int64_t p : {2, 4, 6})
    for (bool vector_r : {false, true})
      for (FourierAttentionMask m : {FourierAttentionMask{}, FourierAttentionMask{.causal = true},
                                     FourierAttentionMask{.causal = true, .key_padding_mask = pad}}) {
        CAPTURE(p);
        CAPTURE(vector_r);
        std::vector<Tensor> in = qk(10 + p);
        in.push_back(vector_r ? r_leaf({0.7, 1.1, 0.9}, {3}) : r_leaf({0.8}, {}));
        auto f = [&](const std::vector<Tensor>& x) { return fourier_attention(x[0], x[1], x[2], x[3], p, m); };
        CHECK(gradcheck(f, in));
      }
  // Nq > Nk with causal: the first rows see no key at all.
  auto f = [](const std::vector<Tensor>& x) { return fourier_attention(x[0], x[1], x[2], x[3], 4, {.causal = true}); };
  CHECK(gradcheck(
      f, {leaf64({1, 2, 4, 2}, 30, 0.4), leaf64({1, 2, 2, 2}, 31, 0.4), leaf64({1, 2, 2, 3}, 32), r_leaf({1.2}, {})}));
  // Differences around 1e-3 straddle the series branch near x = 0.
  CHECK(gradcheck(f, {leaf64({1, 1, 3, 2}, 33, 1e-3), leaf64({1, 1, 3, 2}, 34, 1e-3), leaf64({1, 1, 3, 2}, 35),
                      r_leaf({1.0}, {})}));
}

TEST_CASE("fourier_attention is finite at x = 0 and x = n pi") {
  const double pi = std::numbers::pi;
  // q - k = 0 (exactly), pi / R and 2 pi / R in the three dims of key 1; key 0 is ordinary.
  Tensor q = from_vector(std::vector<double>{0.0, 0.0, 0.0, 0.1, 0.2, 0.3}, {1, 1, 2, 3}, {.dtype = DType::Float64});
  Tensor k =
      from_vector(std::vector<double>{0.3, -0.2, 0.5, 0.0, -pi / 2, -pi}, {1, 1, 2, 3}, {.dtype = DType::Float64});
  Tensor v = leaf64({1, 1, 2, 2}, 40);
  for (DType dt : {DType::Float64, DType::Float32}) {
    Tensor qq = q.to(dt).detach().requires_grad_(true), kk = k.to(dt).detach().requires_grad_(true);
    Tensor vv = v.detach().to(dt).detach().requires_grad_(true);
    Tensor R = scalar_tensor(2.0, {.dtype = dt}).requires_grad_(true);
    Tensor out = fourier_attention(qq, kk, vv, R, 4);
    CHECK(all_finite(out));
    sum(square(out)).backward();
    CHECK(all_finite(qq.grad()));
    CHECK(all_finite(kk.grad()));
    CHECK(all_finite(vv.grad()));
    CHECK(all_finite(R.grad()));
  }
  // Identical q and k: every logit is 0 (sinc(0) = 1), so A is uniform.
  Tensor x = leaf64({1, 1, 3, 4}, 41).detach();
  Tensor u = fourier_attention(x, x, reshape(eye(3, {.dtype = DType::Float64}), {1, 1, 3, 3}),
                               scalar_tensor(0.0, {.dtype = DType::Float64}), 4);
  CHECK(allclose(u, std::vector<double>(9, 1.0 / 3.0), 1e-12, 1e-12));
}

TEST_CASE("fourier_attention dropout uses the (b, h, i, j) Philox stream") {
  Tensor q = leaf64({2, 2, 3, 4}, 50, 0.5).detach(), k = leaf64({2, 2, 5, 4}, 51, 0.5).detach();
  Tensor v = leaf64({2, 2, 5, 3}, 52).detach(), R = scalar_tensor(1.0, {.dtype = DType::Float64});
  Generator gen(7);
  Tensor out = fourier_attention(q, k, v, R, 4, {}, 0.5, true, &gen);
  CHECK(allclose(out, reference(q, k, v, R, 4, {}, 0.5, 7), 1e-10, 1e-12));
  CHECK(allclose(fourier_attention(q, k, v, R, 4, {}, 0.5, false, &gen), reference(q, k, v, R, 4), 1e-10, 1e-12));
  auto f = [](const std::vector<Tensor>& x) {
    Generator g(3);
    return fourier_attention(x[0], x[1], x[2], x[3], 4, {.causal = true}, 0.3, true, &g);
  };
  CHECK(gradcheck(f, {leaf64({1, 2, 3, 2}, 53, 0.4), leaf64({1, 2, 3, 2}, 54, 0.4), leaf64({1, 2, 3, 2}, 55),
                      r_leaf({0.9, 1.3}, {2})}));
}

TEST_CASE("fourier_attention rejects bad arguments") {
  Tensor q = randn({1, 2, 3, 4}), k = randn({1, 2, 5, 4}), v = randn({1, 2, 5, 2}), R = scalar_tensor(2.0);
  CHECK(throws_with([&] { fourier_attention(q, k, v, R, 0); }, {"[fourier_attention]", "positive", "0"}));
  CHECK(throws_with([&] { fourier_attention_logits_reference(q, k, R, 3); },
                    {"[fourier_attention_logits_reference]", "even", "3"}));
  CHECK(throws_with([&] { fourier_attention(q, randn({1, 2, 5, 3}), v, R); }, {"[fourier_attention]", "(1, 2, 5, 3)"}));
  CHECK(throws_with([&] { fourier_attention(q, k, v, zeros({3})); }, {"[fourier_attention]", "R", "(3,)", "(4,)"}));
  CHECK(throws_with([&] { fourier_attention(q, k, v.to(DType::Float64), R); }, {"[fourier_attention]", "float64"}));
  CHECK(throws_with(
      [&] {
        fourier_attention(q, k, v, R, 4, {.key_padding_mask = zeros({1, 5})});
      },
      {"[fourier_attention]", "key_padding_mask"}));
  CHECK(throws_with([&] { fourier_attention(q, k, v, R, 4, {}, 1.0, true); }, {"[fourier_attention]", "dropout"}));
}

TEST_CASE("MultiheadAttention with the Fourier kernel") {
  Generator gen(5);
  nn::MultiheadAttention mha(8, 2, {.kernel = nn::AttentionKernel::Fourier}, &gen);
  auto* score = dynamic_cast<nn::FourierScore*>(mha.score.get());
  REQUIRE(score != nullptr);
  CHECK(score->R.dim() == 0);
  CHECK(score->R.item<float>() == 2.0f);
  CHECK(mha.named_parameters().size() == 9);  // 4 x (weight, bias) + score.R
  Tensor x = randn({2, 5, 8}, {}, &gen);
  Tensor y = mha.forward(x, x, x, {.causal = true});
  CHECK(y.shape() == Shape{2, 5, 8});
  CHECK(mha.forward_heads(x, x, x).shape() == Shape{2, 2, 5, 4});
  sum(y).backward();
  CHECK(score->R.grad().defined());
  CHECK(mha.q_proj->weight.grad().shape() == Shape{8, 8});
  // An attn_mask takes the composed path; an all-false one changes nothing.
  Tensor none = zeros({5, 5}, {.dtype = DType::Bool});
  CHECK(allclose(mha.forward(x, x, x, {.causal = true, .attn_mask = none}), y, 1e-4, 1e-5));
  score->recompute = true;
  CHECK(allclose(mha.forward(x, x, x, {.causal = true}), y, 1e-5, 1e-6));
  score->recompute = false;

  nn::MultiheadAttention vec(
      6, 2, {.kernel = nn::AttentionKernel::Fourier, .fourier = {.r_init = 1.0, .r_per_dim = true, .p = 2}}, &gen);
  vec.to(DType::Float64);
  auto* vs = dynamic_cast<nn::FourierScore*>(vec.score.get());
  CHECK(vs->R.shape() == Shape{3});
  Tensor pad = bool_mask({0, 0, 1, 1, 1, 1}, {2, 3});
  auto f = [&](const std::vector<Tensor>& in) { return vec.forward(in[0], in[1], in[2], {.key_padding_mask = pad}); };
  CHECK(gradcheck(f, {leaf64({2, 2, 6}, 1, 0.5), leaf64({2, 3, 6}, 2, 0.5), leaf64({2, 3, 6}, 3)}));
  // dR against central differences.
  Tensor a = leaf64({2, 2, 6}, 4, 0.5).detach(), b = leaf64({2, 3, 6}, 5, 0.5).detach();
  vec.zero_grad();
  sum(square(vec.forward(a, b, b, {.key_padding_mask = pad}))).backward();
  std::vector<double> analytic = vs->R.grad().to_vector();
  for (int64_t d = 0; d < 3; ++d) {
    NoGradGuard no_grad;
    auto loss_at = [&](double delta) {
      std::vector<double> r = {1.0, 1.0, 1.0};
      r[d] += delta;
      vs->R.copy_(from_vector(r, {3}, {.dtype = DType::Float64}));
      return sum(square(vec.forward(a, b, b, {.key_padding_mask = pad}))).item<double>();
    };
    const double numeric = (loss_at(1e-6) - loss_at(-1e-6)) / 2e-6;
    loss_at(0.0);
    CHECK(std::fabs(numeric - analytic[d]) <= 1e-5 + 1e-4 * std::fabs(numeric));
  }
}

TEST_CASE("head_redundancy: mean pairwise L2 distance between heads") {
  // Heads (B=1, H=3, N=1, Dv=2): (0,0), (3,4), (0,1): distances 5, 1, sqrt(9+9)=sqrt(18).
  Tensor h = from_vector(std::vector<double>{0, 0, 3, 4, 0, 1}, {1, 3, 1, 2}, {.dtype = DType::Float64});
  CHECK(nn::head_redundancy(h).item<double>() == doctest::Approx((5.0 + 1.0 + std::sqrt(18.0)) / 3.0));
  Tensor x = leaf64({2, 3, 4, 2}, 60);
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return nn::head_redundancy(in[0]); }, {x}));
  CHECK(throws_with([] { nn::head_redundancy(zeros({1, 1, 2, 2})); }, {"[head_redundancy]", "2 heads"}));
}

TEST_CASE("fourier_attention float32 kernels (polynomial sin/cos) agree with float64, large |x| too") {
  for (double r : {0.7, 7.0}) {
    CAPTURE(r);
    std::vector<Tensor> in64 = {leaf64({2, 2, 5, 16}, 70), leaf64({2, 2, 7, 16}, 71), leaf64({2, 2, 7, 3}, 72),
                                r_leaf({r}, {})};
    std::vector<Tensor> in32;
    for (const Tensor& t : in64) in32.push_back(t.detach().to(DType::Float32).requires_grad_(true));
    Tensor pad = bool_mask({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {2, 7});
    Tensor g = leaf64({2, 2, 5, 3}, 73).detach();
    Tensor o64 = fourier_attention(in64[0], in64[1], in64[2], in64[3], 4, {.key_padding_mask = pad});
    Tensor o32 = fourier_attention(in32[0], in32[1], in32[2], in32[3], 4, {.key_padding_mask = pad});
    CHECK(allclose(o32.to(DType::Float64), o64, 1e-3, 1e-4));
    sum(mul(o64, g)).backward();
    sum(mul(o32, g.to(DType::Float32))).backward();
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      CHECK(allclose(in32[i].grad().to(DType::Float64), in64[i].grad(), 2e-2, 2e-3));
    }
  }
}

// The float32 kernels' per-dimension math (ops/cpu/sinc_math.h) against the float64 HM_HD
// functions: log|sinc| to 4e-7 max(1, |log|) absolute (its relative error near x = 0 is that
// of log(1 - x^2/6) in float), cot x - 1/x to 1e-6 (1 + |value|) (poles at n pi), zeros of sinc
// and |x| up to 1e5 included. Measured: 1.7e-7 and 2.9e-7.
TEST_CASE("fourier_attention float32 log|sinc| and its derivative against float64") {
  const float floor = static_cast<float>(kFourierSincFloor);
  double worst_l = 0.0, worst_d = 0.0;
  auto check_at = [&](float x) {
    const double l = log_abs_sinc<double>(x), d = dlog_abs_sinc<double>(x);
    worst_l = std::max(worst_l, std::fabs(vm::log_abs_sinc(x, floor) - l) / std::max(1.0, std::fabs(l)));
    worst_d = std::max(worst_d, std::fabs(vm::dlog_abs_sinc(x, floor) - d) / (1.0 + std::fabs(d)));
  };
  for (int i = -400000; i <= 400000; ++i) check_at(static_cast<float>(i) * 1.25e-4f);  // [-50, 50]
  for (int i = -1000; i <= 1000; ++i) check_at(static_cast<float>(i) * 1e-7f);         // near 0
  for (int n = -30; n <= 30; ++n)  // at and next to the zeros of sinc
    for (float e : {0.0f, 1e-6f, -1e-6f, 1e-3f}) check_at(static_cast<float>(n * std::numbers::pi) + e);
  for (float x : {1e3f, -7.5e3f, 1e4f, 3.3e4f, 1e5f}) check_at(x);
  CHECK(worst_l < 4e-7);
  CHECK(worst_d < 1e-6);
  // D > 64: the kernel takes one log per 64 dimensions.
  Tensor q = leaf64({1, 2, 3, 70}, 74, 0.3).detach(), k = leaf64({1, 2, 4, 70}, 75, 0.3).detach();
  Tensor v = leaf64({1, 2, 4, 2}, 76).detach(), R = scalar_tensor(1.5, {.dtype = DType::Float64});
  Tensor o32 = fourier_attention(q.to(DType::Float32), k.to(DType::Float32), v.to(DType::Float32), R.to(DType::Float32),
                                 4, {.causal = true});
  CHECK(allclose(o32.to(DType::Float64), fourier_attention(q, k, v, R, 4, {.causal = true}), 1e-4, 1e-5));
  CHECK(vm::log_abs_sinc(0.0f, floor) == 0.0f);
  CHECK(vm::dlog_abs_sinc(0.0f, floor) == 0.0f);
}

TEST_CASE("fourier_attention recompute (flash-style) matches the stored-A path") {
  Tensor pad = bool_mask({0, 0, 1, 0, 1, 1, 1, 1}, {2, 4});  // batch 1 fully padded
  for (DType dt : {DType::Float64, DType::Float32})
    for (FourierAttentionMask m :
         {FourierAttentionMask{}, FourierAttentionMask{.causal = true, .key_padding_mask = pad}}) {
      std::vector<Tensor> a, b;
      for (uint64_t s : {80, 81, 82}) {
        Tensor t = leaf64({2, 2, s == 80 ? 5 : 4, 3}, s, 0.5).detach().to(dt);
        a.push_back(t.detach().requires_grad_(true));
        b.push_back(t.detach().requires_grad_(true));
      }
      a.push_back(scalar_tensor(1.3, {.dtype = dt}).requires_grad_(true));
      b.push_back(scalar_tensor(1.3, {.dtype = dt}).requires_grad_(true));
      Generator g1(9), g2(9);
      Tensor oa = fourier_attention(a[0], a[1], a[2], a[3], 4, m, 0.2, true, &g1);
      Tensor ob = fourier_attention(b[0], b[1], b[2], b[3], 4, m, 0.2, true, &g2, true);
      CHECK(allclose(ob, oa, 1e-6, 1e-7));
      sum(square(oa)).backward();
      sum(square(ob)).backward();
      for (int i = 0; i < 4; ++i) CHECK(allclose(b[i].grad(), a[i].grad(), 1e-4, 1e-6));
    }
  auto f = [&](const std::vector<Tensor>& x) {
    Generator g(4);
    return fourier_attention(x[0], x[1], x[2], x[3], 6, {.causal = true, .key_padding_mask = pad}, 0.25, true, &g,
                             true);
  };
  CHECK(gradcheck(f, {leaf64({2, 1, 3, 3}, 90, 0.4), leaf64({2, 1, 4, 3}, 91, 0.4), leaf64({2, 1, 4, 2}, 92),
                      r_leaf({0.7, 1.1, 0.9}, {3})}));
}

TEST_CASE("fourier_attention with odd p is the signed normalised kernel (forward, gradcheck, causal skip)") {
  // R = 3.5 puts some R (q - k) past pi (negative sinc); p odd keeps those weights negative.
  Tensor q = leaf64({2, 2, 4, 2}, 60, 0.5).detach(), k = leaf64({2, 2, 5, 2}, 61, 0.5).detach();
  Tensor v = leaf64({2, 2, 5, 3}, 62).detach();
  Tensor R = tensor({3.5, 3.0}, {2}, {.dtype = DType::Float64});
  Tensor pad = bool_mask({0, 1, 0, 0, 0, 1, 1, 1, 1, 1}, {2, 5});  // batch 1: every key padded
  for (int64_t p : {1, 3, 5, 4})
    for (FourierAttentionMask m : {FourierAttentionMask{}, FourierAttentionMask{.causal = true},
                                   FourierAttentionMask{.causal = true, .key_padding_mask = pad}}) {
      CAPTURE(p);
      CHECK(allclose(fourier_attention(q, k, v, R, p, m), signed_reference(q, k, v, R, p, m), 1e-9, 1e-11));
      CHECK(allclose(fourier_attention(q, k, v, R, p, m, 0, false, nullptr, true), signed_reference(q, k, v, R, p, m),
                     1e-9, 1e-11));  // recompute is ignored for odd p
      Tensor f32 = fourier_attention(q.to(DType::Float32), k.to(DType::Float32), v.to(DType::Float32),
                                     R.to(DType::Float32), p, m);
      CHECK(allclose(f32.to(DType::Float64), signed_reference(q, k, v, R, p, m), 1e-4, 1e-4));
    }
  // Some weight is negative: the kernel is really signed at these points.
  Tensor ident = broadcast_to(reshape(eye(5, {.dtype = DType::Float64}), {1, 1, 5, 5}), {2, 2, 5, 5}).contiguous();
  double most_negative = 0;
  for (double a : fourier_attention(q, k, ident, R, 3).to_vector()) most_negative = std::min(most_negative, a);
  CHECK(most_negative < -1e-4);
  // Gradients where the signed row sums are far from zero (checked: the reference's z > 0.1).
  for (int64_t p : {1, 3}) {
    CAPTURE(p);
    auto f = [p](const std::vector<Tensor>& x) {
      Generator g(3);
      return fourier_attention(x[0], x[1], x[2], x[3], p, {.causal = true}, 0.2, true, &g);
    };
    CHECK(gradcheck(f, {leaf64({1, 2, 3, 2}, 63, 0.5), leaf64({1, 2, 4, 2}, 64, 0.5), leaf64({1, 2, 4, 2}, 65),
                        r_leaf({3.5, 3.0}, {2})}));
  }
  nn::FourierScore score(2, 3.5, false, 3);  // odd p is accepted by the layer too
  CHECK(score.p == 3);
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] fourier_attention matches the CPU (masks, dropout, recompute, dtypes)") {
  announce_targets();
  Tensor pad = bool_mask({0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5});  // batch 1: every key padded
  for (DType dt : {DType::Float64, DType::Float32})
    for (bool recompute : {false, true})
      for (int mode = 0; mode < 4; ++mode) {  // none, causal, padding (odd p), causal + padding + dropout
        CAPTURE(recompute);
        CAPTURE(mode);
        const std::vector<Tensor> inputs = {scaled_normal({2, 2, 4, 3}, 1, 0.5, dt), scaled_normal({2, 2, 5, 3}, 2, 0.5, dt),
                                            scaled_normal({2, 2, 5, 2}, 3, 1.0, dt),
                                            from_vector(std::vector<double>{0.5, 2.0, 1.0}, {3}).to(dt), pad};
        check_against_cpu(
            "fourier_attention",
            [=](const std::vector<Tensor>& x) {
              FourierAttentionMask m{.causal = mode == 1 || mode == 3};
              if (mode >= 2) m.key_padding_mask = x[4];
              Generator gen(7);  // fresh per call: the same dropout mask on every target
              return fourier_attention(x[0], x[1], x[2], x[3],
                                       mode == 3   ? 6
                                       : mode == 2 ? 3
                                                   : 4,
                                       m, mode == 3 ? 0.3 : 0.0, true, &gen, recompute);
            },
            inputs);
      }
}

TEST_CASE("[cuda] fourier_attention with eps matches the CPU (saved A and recompute)") {
  announce_targets();
  for (bool recompute : {false, true}) {
    CAPTURE(recompute);
    check_against_cpu(
        "fourier_attention eps",
        [=](const std::vector<Tensor>& x) {
          return fourier_attention(x[0], x[1], x[2], x[3], 4, {.causal = true}, 0.0, false, nullptr, recompute, 0.3);
        },
        {scaled_normal({2, 2, 4, 3}, 1, 0.5, DType::Float32), scaled_normal({2, 2, 5, 3}, 2, 0.5, DType::Float32),
         scaled_normal({2, 2, 5, 2}, 3, 1.0, DType::Float32),
         from_vector(std::vector<double>{0.5, 2.0, 1.0}, {3}).to(DType::Float32)});
  }
}

}  // namespace cuda_cases

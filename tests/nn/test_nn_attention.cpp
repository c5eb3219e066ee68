// Attention: masked softmax, scaled dot-product attention, KV cache, MultiheadAttention.
#include <cmath>
#include <limits>

#include "harmonic/models/t5.h"
#include "harmonic/nn/attention.h"
#include "tests/helpers.h"
#include "tests/seq_inputs.h"

using namespace hm;
using namespace hm::test;

namespace {

// Naive loops: softmax over allowed keys of q.k * scale + bias, zeros for a fully masked row.
// q (B,H,Nq,D), k (B,H,Nk,D), v (B,H,Nk,Dv), bias (B,H,Nq,Nk) or undefined, pad (B,Nk) or undefined.
Tensor reference_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, const Tensor& bias,
                           const Tensor& pad, double scale) {
  const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), D = q.size(3), Nk = k.size(2), Dv = v.size(3);
  auto Q = q.to_vector(), K = k.to_vector(), V = v.to_vector();
  std::vector<double> bias_v = bias.defined() ? broadcast_to(bias, {B, H, Nq, Nk}).contiguous().to_vector()
                                              : std::vector<double>(B * H * Nq * Nk, 0.0);
  std::vector<double> pad_v = pad.defined() ? pad.to_vector() : std::vector<double>(B * Nk, 0.0);
  std::vector<double> out(B * H * Nq * Dv, 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Nq; ++i) {
        std::vector<double> w(Nk, 0.0);
        double m = -INFINITY, s = 0;
        std::vector<bool> ok(Nk);
        for (int64_t j = 0; j < Nk; ++j) {
          ok[j] = !(causal && j > i + (Nk - Nq)) && pad_v[b * Nk + j] == 0;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += Q[((b * H + h) * Nq + i) * D + d] * K[((b * H + h) * Nk + j) * D + d];
          w[j] = dot * scale + bias_v[((b * H + h) * Nq + i) * Nk + j];
          if (ok[j]) m = std::max(m, w[j]);
        }
        for (int64_t j = 0; j < Nk; ++j) s += ok[j] ? std::exp(w[j] - m) : 0.0;
        for (int64_t j = 0; j < Nk; ++j) {
          if (!ok[j]) continue;
          double p = std::exp(w[j] - m) / s;
          for (int64_t d = 0; d < Dv; ++d)
            out[((b * H + h) * Nq + i) * Dv + d] += p * V[((b * H + h) * Nk + j) * Dv + d];
        }
      }
  return from_vector(out, {B, H, Nq, Dv});
}

Tensor bool_tensor(const std::vector<int64_t>& values, const Shape& shape) {
  return ne(from_vector(values, shape), zeros(shape, {.dtype = DType::Int64}));
}

}  // namespace

TEST_CASE("attention matches a loop reference with and without masks") {
  Generator gen(3);
  auto q = randn({2, 3, 4, 5}, {.dtype = DType::Float64}, &gen);
  auto k = randn({2, 3, 6, 5}, {.dtype = DType::Float64}, &gen);
  auto v = randn({2, 3, 6, 7}, {.dtype = DType::Float64}, &gen);
  auto bias = randn({1, 3, 4, 6}, {.dtype = DType::Float64}, &gen);
  Tensor pad = bool_tensor({0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0}, {2, 6});
  const double s = 1 / std::sqrt(5.0);
  CHECK(allclose(nn::attention(q, k, v), reference_attention(q, k, v, false, {}, {}, s), 1e-10, 1e-12));
  CHECK(
      allclose(nn::attention(q, k, v, {.causal = true}), reference_attention(q, k, v, true, {}, {}, s), 1e-10, 1e-12));
  nn::AttentionMask all{.causal = true, .key_padding_mask = pad, .additive_bias = bias};
  CHECK(allclose(nn::attention(q, k, v, all), reference_attention(q, k, v, true, bias, pad, s), 1e-10, 1e-12));
  CHECK(allclose(nn::attention(q, k, v, all, 0.0, false, nullptr, 0.7),
                 reference_attention(q, k, v, true, bias, pad, 0.7), 1e-10, 1e-12));
  // float32 agrees with the float64 loops.
  auto f = [](const Tensor& t) { return t.to(DType::Float32); };
  CHECK(allclose(nn::attention(f(q), f(k), f(v), {.causal = true, .key_padding_mask = pad, .additive_bias = f(bias)}),
                 f(reference_attention(q, k, v, true, bias, pad, s)), 1e-4, 1e-5));
  // A bool attn_mask equal to the causal one gives the same result.
  Tensor tri = gt(reshape(arange(6), {1, 6}), add(reshape(arange(4), {4, 1}), 2));  // (Nq, Nk)
  CHECK(allclose(nn::attention(q, k, v, {.attn_mask = tri}), nn::attention(q, k, v, {.causal = true}), 1e-12, 1e-12));
}

TEST_CASE("attention matches PyTorch 1.13 on fixed values") {
  // /usr/bin/python3 (torch 1.13), seq(shape, a, b) = sin(a * arange(prod(shape)) + b).reshape(shape):
  //   q = seq((1,2,3,2), .5, 0); k = seq((1,2,4,2), .3, 1); v = seq((1,2,4,2), .7, 2)
  //   logits = q @ k.transpose(-2, -1) / math.sqrt(2)
  //   torch.softmax(logits, -1).matmul(v)                                   -> plain
  //   causal = arange(4)[None] > arange(3)[:, None] + 1; bias = seq((1,2,3,4), .9, .5)
  //   torch.softmax((logits + bias).masked_fill(causal, -inf), -1).matmul(v) -> masked
  Tensor q = seq({1, 2, 3, 2}, 0.5, 0.0), k = seq({1, 2, 4, 2}, 0.3, 1.0), v = seq({1, 2, 4, 2}, 0.7, 2.0);
  Tensor bias = seq({1, 2, 3, 4}, 0.9, 0.5);
  CHECK(allclose(nn::attention(q, k, v),
                 {-0.07916619598088885, -0.16245611709755506, -0.04805352287941363, -0.2391062550524573,
                  -0.07231468790195195, -0.22791717498577013, -0.03478436846586519, -0.11828326507104292,
                  -0.17478606929268536, -0.266772105197094, -0.18635229625806846, -0.2682087229102842},
                 1e-12, 1e-12));
  CHECK(allclose(nn::attention(q, k, v, {.causal = true, .additive_bias = bias}),
                 {0.18418529221125557, -0.34804175768832646, -0.16294481046402035, -0.37702552596519623,
                  0.17834429794823475, -0.1929466708082938, 0.6038064069021885, 0.1331119769725184, 0.42447493596113217,
                  0.12485046401431654, -0.40641331108790074, -0.47072431490424593},
                 1e-12, 1e-12));
}

TEST_CASE("MultiheadAttention matches torch.nn.MultiheadAttention with fixed weights") {
  // mha = torch.nn.MultiheadAttention(4, 2, batch_first=True, dtype=torch.float64) with
  //   in_proj_weight = cat(.5 seq((4,4), .11, .2), .5 seq((4,4), .13, .4), seq((4,4), .17, .6)),
  //   in_proj_bias = cat(seq((4,), .23, .1), seq((4,), .29, .3), seq((4,), .31, .5)),
  //   out_proj.weight = seq((4,4), .19, .8), out_proj.bias = seq((4,), .37, .7);
  //   x = seq((2,3,4), .41, 0); mem = seq((2,5,4), .43, .9)
  //   pad = [[F,F,F,T,T],[F,F,F,F,F]]; mha(x, mem, mem, key_padding_mask=pad)[0]
  nn::MultiheadAttention mha(4, 2);
  mha.to(DType::Float64);
  {
    NoGradGuard no_grad;
    mha.q_proj->weight.copy_(mul(seq({4, 4}, 0.11, 0.2), 0.5));
    mha.k_proj->weight.copy_(mul(seq({4, 4}, 0.13, 0.4), 0.5));
    mha.v_proj->weight.copy_(seq({4, 4}, 0.17, 0.6));
    mha.out_proj->weight.copy_(seq({4, 4}, 0.19, 0.8));
    mha.q_proj->bias.copy_(seq({4}, 0.23, 0.1));
    mha.k_proj->bias.copy_(seq({4}, 0.29, 0.3));
    mha.v_proj->bias.copy_(seq({4}, 0.31, 0.5));
    mha.out_proj->bias.copy_(seq({4}, 0.37, 0.7));
  }
  Tensor x = seq({2, 3, 4}, 0.41, 0.0), mem = seq({2, 5, 4}, 0.43, 0.9);
  Tensor pad = bool_tensor({0, 0, 0, 1, 1, 0, 0, 0, 0, 0}, {2, 5});
  CHECK(
      allclose(mha.forward(x, mem, mem, {.key_padding_mask = pad}),
               {10.544028860472455,  11.804113972741831, 6.932087911346516,   -1.3434220449515726, 10.749398218005517,
                12.053853345349268,  7.088758734944873,  -1.3660401080059557, -1.4475751800721026, -1.7174463641720277,
                -0.6781357553111099, 1.145809965190015,  -1.2091221884470211, -1.4562528189004331, -0.5379437721643175,
                1.0878488155223747,  8.897332039080478,  9.976633387253086,   5.929537258154261,   -0.9693110915139518,
                8.018844505901466,   8.883568772446562,  5.223439601576462,   -0.8998564938821336},
               1e-10, 1e-10));
  CHECK(mha.num_parameters() == 4 * (16 + 4));
}

TEST_CASE("attention: fully masked rows give zeros and finite gradients") {
  Tensor q = leaf64({2, 1, 3, 4}, 1), k = leaf64({2, 1, 5, 4}, 2), v = leaf64({2, 1, 5, 3}, 3);
  Tensor pad = bool_tensor({1, 1, 1, 1, 1, 0, 0, 1, 0, 0}, {2, 5});  // batch 0 has no key at all
  for (DType dt : {DType::Float64, DType::Float32}) {
    Tensor qd = q.to(dt), kd = k.to(dt), vd = v.to(dt);
    Tensor out = nn::attention(qd, kd, vd, {.key_padding_mask = pad});
    auto o = out.to_vector();
    for (size_t i = 0; i < 9; ++i) CHECK(o[i] == 0.0);
    for (double x : o) CHECK(std::isfinite(x));
    sum(out).backward();
  }
  for (const Tensor& t : {q, k, v})
    for (double g : t.grad().to_vector()) CHECK(std::isfinite(g));
  // Gradients reach only batch 1.
  CHECK(sum(abs(narrow(q.grad(), 0, 0, 1))).item<double>() == 0.0);
  CHECK(sum(abs(narrow(q.grad(), 0, 1, 1))).item<double>() > 0.0);
  // Causal with more queries than keys: the first rows see nothing (bottom-right alignment).
  Tensor qq = randn({1, 1, 4, 2}, {.dtype = DType::Float64}), kk = randn({1, 1, 2, 2}, {.dtype = DType::Float64});
  auto r = nn::attention(qq, kk, kk, {.causal = true}).to_vector();
  CHECK(r[0] == 0.0);
  CHECK(r[3] == 0.0);
  CHECK(r[4] != 0.0);
  // A -inf additive bias over a whole row is treated the same way.
  Tensor bias = zeros({1, 1, 4, 2}, {.dtype = DType::Float64});
  { narrow(bias, 2, 1, 1).fill_(-INFINITY); }
  auto rb = nn::attention(qq, kk, kk, {.additive_bias = bias}).to_vector();
  CHECK(rb[2] == 0.0);
  CHECK(rb[3] == 0.0);
  CHECK(std::isfinite(rb[0]));
}

TEST_CASE("attention gradcheck (float64) with masks and bias") {
  Tensor pad = bool_tensor({0, 0, 0, 1, 0, 1, 1, 1}, {2, 4});  // batch 1 sees only key 0
  auto f = [&](const std::vector<Tensor>& in) {
    return nn::attention(in[0], in[1], in[2], {.causal = true, .key_padding_mask = pad, .additive_bias = in[3]});
  };
  CHECK(gradcheck(
      f, {leaf64({2, 2, 3, 3}, 1), leaf64({2, 2, 4, 3}, 2), leaf64({2, 2, 4, 2}, 3), leaf64({1, 2, 3, 4}, 4)}));
  // Non-contiguous q (a transposed view) and a fully masked batch.
  Tensor all_pad = bool_tensor({1, 1, 1, 0, 0, 0}, {2, 3});
  auto g = [&](const std::vector<Tensor>& in) {
    return nn::attention(transpose(in[0], 2, 3), in[1], in[2], {.key_padding_mask = all_pad});
  };
  CHECK(gradcheck(g, {leaf64({2, 1, 4, 2}, 5), leaf64({2, 1, 3, 4}, 6), leaf64({2, 1, 3, 3}, 7)}));
}

TEST_CASE("MultiheadAttention gradcheck (float64, inputs and weights)") {
  Generator gen(11);
  nn::MultiheadAttention mha(6, 2, {.kdim = 5, .vdim = 4}, &gen);
  mha.to(DType::Float64);
  Tensor pad = bool_tensor({0, 0, 1, 0, 0, 0}, {2, 3});
  auto f = [&](const std::vector<Tensor>& in) { return mha.forward(in[0], in[1], in[2], {.key_padding_mask = pad}); };
  CHECK(gradcheck(f, {leaf64({2, 2, 6}, 1), leaf64({2, 3, 5}, 2), leaf64({2, 3, 4}, 3)}));
  // Weight gradients: compare the k_proj weight's analytic gradient with finite differences.
  Tensor x = leaf64({2, 2, 6}, 8).detach(), m = leaf64({2, 3, 5}, 9).detach(), val = leaf64({2, 3, 4}, 10).detach();
  Tensor W = mha.k_proj->weight;
  mha.zero_grad();
  sum(square(mha.forward(x, m, val))).backward();
  auto analytic = W.grad().to_vector();
  const double eps = 1e-6;
  for (int64_t idx : {0, 7, 29}) {
    NoGradGuard no_grad;
    double* p = W.data<double>() + idx;
    double orig = *p;
    *p = orig + eps;
    double up = sum(square(mha.forward(x, m, val))).item<double>();
    *p = orig - eps;
    double down = sum(square(mha.forward(x, m, val))).item<double>();
    *p = orig;
    CHECK(analytic[idx] == doctest::Approx((up - down) / (2 * eps)).epsilon(1e-5));
  }
}

TEST_CASE("KV cache: incremental causal self-attention equals full recomputation") {
  Generator gen(5);
  nn::MultiheadAttention mha(8, 2, {}, &gen);
  mha.eval();
  Tensor x = randn({2, 7, 8}, {}, &gen);
  Tensor full = mha.forward(x, x, x, {.causal = true});  // (2, 7, 8)
  nn::KVCache cache;
  std::vector<Tensor> steps;
  // A 3-token prefix, then one token at a time.
  Tensor pre = narrow(x, 1, 0, 3);
  steps.push_back(mha.forward(pre, pre, pre, {.causal = true}, &cache));
  for (int64_t t = 3; t < 7; ++t) {
    Tensor xt = narrow(x, 1, t, 1);
    steps.push_back(mha.forward(xt, xt, xt, {.causal = true}, &cache));
    CHECK(cache.length() == t + 1);
  }
  CHECK(allclose(cat(steps, 1), full, 1e-5, 1e-6));
  // A static (cross-attention) cache projects the memory once and reuses it.
  Tensor mem = randn({2, 4, 8}, {}, &gen);
  nn::KVCache cross{.is_static = true};
  Tensor a = mha.forward(narrow(x, 1, 0, 1), mem, mem, {}, &cross);
  Tensor b = mha.forward(narrow(x, 1, 1, 1), Tensor(), Tensor(), {}, &cross);
  CHECK(cross.length() == 4);
  // Stored contiguous once: each later step reads it without copying the split-heads view.
  CHECK((cross.k.is_contiguous() && cross.v.is_contiguous()));
  CHECK(allclose(cat({a, b}, 1), mha.forward(narrow(x, 1, 0, 2), mem, mem), 1e-5, 1e-6));
  cache.reset();
  CHECK(cache.empty());
}

TEST_CASE("attention dropout: seeded in training, off in eval") {
  Generator g1(9), g2(9);
  Tensor q = randn({1, 2, 5, 4}), k = randn({1, 2, 6, 4}), v = randn({1, 2, 6, 3});
  Tensor a = nn::attention(q, k, v, {}, 0.5, true, &g1), b = nn::attention(q, k, v, {}, 0.5, true, &g2);
  CHECK(allclose(a, b, 0, 0));
  CHECK(sum(abs(sub(a, nn::attention(q, k, v)))).item<double>() > 1e-3);
  CHECK(allclose(nn::attention(q, k, v, {}, 0.5, false, &g1), nn::attention(q, k, v), 0, 0));
}

TEST_CASE("attention errors name the function and shapes") {
  Tensor q = randn({1, 2, 3, 4}), k = randn({1, 2, 5, 4}), v = randn({1, 2, 5, 3});
  CHECK(throws_with([&] { nn::attention(q, randn({1, 2, 5, 3}), v); }, {"[attention]", "(1, 2, 5, 3)"}));
  CHECK(throws_with([&] { nn::attention(reshape(q, {2, 3, 4}), k, v); }, {"[attention]", "(2, 3, 4)"}));
  CHECK(throws_with([&] { nn::attention(q, k, randn({1, 2, 4, 3})); }, {"[attention]", "(1, 2, 4, 3)"}));
  CHECK(throws_with(
      [&] {
        nn::attention(q, k, v, {.key_padding_mask = zeros({1, 4}, {.dtype = DType::Bool})});
      },
      {"[attention]", "key_padding_mask", "(1, 5)"}));
  CHECK(throws_with([&] { nn::attention(q, k, v, {.key_padding_mask = zeros({1, 5})}); }, {"[attention]", "float32"}));
  CHECK(throws_with(
      [&] {
        nn::attention(q, k, v, {.additive_bias = zeros({4, 5})});
      },
      {"[attention]", "additive_bias", "(4, 5)"}));
  CHECK(throws_with(
      [&] {
        nn::attention(q, k, v, {.additive_bias = zeros({3, 5}, {.dtype = DType::Float64})});
      },
      {"[attention]", "float64"}));
  CHECK(throws_with([&] { nn::MultiheadAttention(6, 4); }, {"[MultiheadAttention]", "divisible"}));
  CHECK(
      throws_with([&] { nn::MultiheadAttention(8, 2, {.kernel = nn::AttentionKernel::Fourier, .fourier = {.p = 0}}); },
                  {"[FourierScore]", "positive", "0"}));  // odd p is the signed kernel (ops/fourier_attention.h)
  nn::MultiheadAttention mha(8, 2);
  CHECK(throws_with(
      [&] {
        mha.forward(randn({2, 3, 8}), randn({2, 4, 6}), randn({2, 4, 8}));
      },
      {"[MultiheadAttention]", "(2, 4, 6)"}));
  nn::KVCache cache;
  cache.append(randn({1, 2, 3, 4}), randn({1, 2, 3, 4}));
  CHECK(throws_with(
      [&] {
        cache.append(randn({1, 3, 1, 4}), randn({1, 3, 1, 4}));
      },
      {"[KVCache::append]", "(1, 3, 1, 4)"}));
}

namespace {

// Sets `fused` on every DotProductScore under m (false: the composed path everywhere).
void set_fused(nn::Module& m, bool fused) {
  for (auto& [name, child] : m.named_children()) {
    if (auto score = std::dynamic_pointer_cast<nn::DotProductScore>(child)) score->fused = fused;
    set_fused(*child, fused);
  }
}

}  // namespace

TEST_CASE("T5 with the fused biased attention equals the composed path (forward, backward, dropout)") {
  // The relative position bias (1, H, Nq, Nk) goes to the fused op in every encoder and decoder
  // self-attention; the composed twin (fused = false) is the specification. float64, training
  // mode with dropout: both paths draw the same masks from same-seeded generators.
  models::T5Config c;
  c.vocab_size = 13, c.d_model = 8, c.d_kv = 3, c.num_heads = 2, c.d_ff = 10;
  c.num_layers = 2, c.num_decoder_layers = 2;
  c.relative_attention_num_buckets = 8, c.relative_attention_max_distance = 12;
  c.dropout_rate = 0.1;
  Tensor in = from_vector(std::vector<int64_t>{3, 7, 1, 9, 0, 2, 4, 6, 8, 10, 11, 12, 5, 5}, {2, 7});
  Tensor mask = from_vector(std::vector<int64_t>{1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1}, {2, 7});
  Tensor dec = from_vector(std::vector<int64_t>{0, 5, 2, 7, 1, 0, 1, 3, 3, 12}, {2, 5});
  auto run = [&](bool fused) {
    Generator gen(17);
    models::T5 t5(c, &gen);
    t5.to(DType::Float64);
    t5.train();
    set_fused(t5, fused);
    Tensor logits = t5.forward(in, mask, dec);  // (2, 5, V)
    sum(square(logits)).backward();
    std::vector<Tensor> out{logits.detach()};
    for (auto& [name, p] : t5.named_parameters()) out.push_back(p.grad());
    return out;
  };
  std::vector<Tensor> fused = run(true), composed = run(false);
  REQUIRE(fused.size() == composed.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    CAPTURE(i);
    REQUIRE(fused[i].defined());
    CHECK(allclose(fused[i], composed[i], 1e-9, 1e-11));
  }
}

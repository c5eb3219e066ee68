// The fused scaled_dot_product_attention's additive bias (mask.additive_bias, T5's relative
// position bias) against the composed nn::attention / composed twin: every broadcast shape,
// with padding and causal masks, -inf entries and fully -inf rows, the direct (one query row)
// and tiled paths across the 128-key tile, dropout, float64 gradchecks of q, k, v and the bias,
// a bias gradient independent of the thread count, and the argument errors.
#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "core/parallel.h"
#include "nn/attention.h"
#include "ops/fourier_attention.h"
#include "ops/scaled_dot_product_attention.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr int64_t B = 2, H = 3;

Tensor bool_mask(const std::vector<int64_t>& values, const Shape& shape) {
  return ne(from_vector(values, shape), zeros(shape, {.dtype = DType::Int64}));
}

// The bias shapes that broadcast to (B, H, nq, nk) and that the op must take.
std::vector<Shape> bias_shapes(int64_t nq, int64_t nk) {
  return {{1, H, nq, nk}, {B, H, nq, nk}, {1, 1, nq, nk}, {nq, nk}, {nk}};
}

// A float64 bias leaf of `shape` with one -inf entry and, when it has a query dim and more than
// one row, its row 1 all -inf (in the first slice: b = h = 0, or every (b, h) when shared).
Tensor bias_with_infs(const Shape& shape, uint64_t seed) {
  Tensor b = leaf64(shape, seed).detach();
  double* p = b.data<double>();
  const int64_t nk = shape.back();
  p[nk > 1 ? 1 : 0] = kNegInf;
  if (shape.size() >= 2 && shape[shape.size() - 2] > 1)
    for (int64_t j = 0; j < nk; ++j) p[nk + j] = kNegInf;
  return b.requires_grad_(true);
}

// Padding: batch 0 every third key, batch 1 none (so the -inf bias row is the only dead row there).
Tensor padding(int64_t nk) {
  std::vector<int64_t> pv(B * nk, 0);
  for (int64_t j = 0; j < nk; ++j) pv[j] = j % 3 == 1;
  return bool_mask(pv, {B, nk});
}

std::vector<FusedAttentionMask> masks_with(const Tensor& bias, int64_t nk) {
  Tensor pad = padding(nk);
  return {{.additive_bias = bias},
          {.causal = true, .additive_bias = bias},
          {.key_padding_mask = pad, .additive_bias = bias},
          {.causal = true, .key_padding_mask = pad, .additive_bias = bias}};
}

nn::AttentionMask nn_mask(const FusedAttentionMask& m) {
  return {.causal = m.causal, .key_padding_mask = m.key_padding_mask, .additive_bias = m.additive_bias};
}

FusedAttentionMask to32(FusedAttentionMask m) {
  m.additive_bias = m.additive_bias.detach().to(DType::Float32);
  return m;
}

// Sizes (Nq, Nk): one query row (the direct path) around the 128-key tile, and tiled rows
// across the 64-row and 128-key tiles, Nq > Nk (causal rows that see nothing) and Nq < Nk.
const std::vector<std::pair<int64_t, int64_t>> kSizes = {{1, 5}, {1, 127},  {1, 128},  {1, 129},
                                                         {3, 5}, {66, 128}, {70, 129}, {130, 70}};

}  // namespace

TEST_CASE("scaled_dot_product_attention with a bias equals nn::attention (shapes, masks, -inf, both paths)") {
  for (auto [nq, nk] : kSizes)
    for (const Shape& bshape : bias_shapes(nq, nk)) {
      Tensor q = leaf64({B, H, nq, 4}, 1).detach(), k = leaf64({B, H, nk, 4}, 2).detach();
      Tensor v = leaf64({B, H, nk, 3}, 3).detach();
      Tensor bias = bias_with_infs(bshape, 4).detach();
      for (const FusedAttentionMask& m : masks_with(bias, nk)) {
        CAPTURE(nq);
        CAPTURE(nk);
        CAPTURE(str(bshape));
        CAPTURE(m.causal);
        CAPTURE(m.key_padding_mask.defined());
        Tensor reference = nn::attention(q, k, v, nn_mask(m));  // float64, composed
        Tensor fused = scaled_dot_product_attention(q, k, v, m);
        CHECK(allclose(fused, reference, 1e-10, 1e-12));
        CHECK(allclose(detail::scaled_dot_product_attention_composed(q, k, v, m), reference, 1e-12, 1e-13));
        Tensor q32 = q.to(DType::Float32), k32 = k.to(DType::Float32), v32 = v.to(DType::Float32);
        Tensor fused32 = scaled_dot_product_attention(q32, k32, v32, to32(m));
        CHECK(fused32.dtype() == DType::Float32);
        CHECK(allclose(fused32.to(DType::Float64), reference, 1e-5, 1e-5));
        if (bshape.size() >= 2 && nq > 1) {  // bias row 1 all -inf: exactly zero, as a fully masked row
          Tensor row = narrow(select(select(fused32, 0, 0), 0, 0), 0, 1, 1);  // (1, Dv) of b = h = 0
          CHECK(allclose(row, zeros({1, 3}), 0, 0));
        }
      }
    }
}

TEST_CASE("scaled_dot_product_attention with a bias: gradients equal the composed twin's, zero for -inf rows") {
  for (auto [nq, nk] : std::vector<std::pair<int64_t, int64_t>>{{1, 129}, {70, 129}, {3, 5}})
    for (const Shape& bshape : bias_shapes(nq, nk))
      for (int mode = 0; mode < 4; ++mode) {
        CAPTURE(nq);
        CAPTURE(nk);
        CAPTURE(str(bshape));
        CAPTURE(mode);
        Tensor w = leaf64({B, H, nq, 3}, 9).detach();  // a loss weight per output element
        auto grads = [&](bool fused) {
          Tensor q = leaf64({B, H, nq, 4}, 5), k = leaf64({B, H, nk, 4}, 6), v = leaf64({B, H, nk, 3}, 7);
          Tensor bias = bias_with_infs(bshape, 8);
          FusedAttentionMask m = masks_with(bias, nk)[mode];
          Tensor out = fused ? scaled_dot_product_attention(q, k, v, m)
                             : detail::scaled_dot_product_attention_composed(q, k, v, m);
          sum(mul(out, w)).backward();
          return std::vector<Tensor>{q.grad(), k.grad(), v.grad(), bias.grad()};
        };
        std::vector<Tensor> got = grads(true), want = grads(false);
        for (size_t i = 0; i < got.size(); ++i) {
          CAPTURE(i);
          REQUIRE(got[i].shape() == want[i].shape());
          for (double x : got[i].to_vector()) CHECK(std::isfinite(x));
          CHECK(allclose(got[i], want[i], 1e-10, 1e-12));
        }
        if (bshape.size() >= 2 && nq > 1) {  // the all -inf bias row: no gradient to q or the bias row
          CHECK(allclose(narrow(select(select(got[0], 0, 0), 0, 0), 0, 1, 1), zeros({1, 4}, {.dtype = DType::Float64}),
                         0, 0));
          Tensor db = reshape(got[3], {-1, nq, nk});
          CHECK(allclose(narrow(select(db, 0, 0), 0, 1, 1), zeros({1, nk}, {.dtype = DType::Float64}), 0, 0));
        }
      }
}

TEST_CASE("scaled_dot_product_attention gradcheck (float64) of q, k, v and the bias") {
  Tensor pad = bool_mask({0, 0, 1, 0, 1, 1, 1, 1}, {2, 4});  // batch 1 fully padded: zero grads
  for (int64_t nq : {3, 1})
    for (const Shape& bshape : std::vector<Shape>{{1, 2, nq, 4}, {2, 2, nq, 4}, {1, 1, nq, 4}, {4}})
      for (int mode = 0; mode < 4; ++mode) {
        CAPTURE(nq);
        CAPTURE(str(bshape));
        CAPTURE(mode);
        FusedAttentionMask m{.causal = mode == 1 || mode == 3};
        if (mode == 2) m.key_padding_mask = pad;
        const double drop = mode == 3 ? 0.3 : 0.0;
        auto f = [&](const std::vector<Tensor>& x) {
          Generator g(5);
          FusedAttentionMask mb = m;
          mb.additive_bias = x[3];
          return scaled_dot_product_attention(x[0], x[1], x[2], mb, drop, true, &g);
        };
        CHECK(gradcheck(
            f, {leaf64({2, 2, nq, 2}, 20), leaf64({2, 2, 4, 2}, 21), leaf64({2, 2, 4, 3}, 22), leaf64(bshape, 23)}));
      }
  // Across the 64-row and 128-key tiles, causal with Nq < Nk, a bias shared by batch and heads.
  auto f = [](const std::vector<Tensor>& x) {
    return scaled_dot_product_attention(x[0], x[1], x[2], {.causal = true, .additive_bias = x[3]});
  };
  CHECK(gradcheck(f, {leaf64({2, 1, 66, 2}, 24), leaf64({2, 1, 130, 2}, 25), leaf64({2, 1, 130, 2}, 26),
                      leaf64({1, 1, 66, 130}, 27)}));
}

TEST_CASE("scaled_dot_product_attention with a bias and dropout equals the composed twin (same Philox mask)") {
  for (int64_t nq : {1, 67}) {
    CAPTURE(nq);
    auto run = [&](bool fused, Generator& gen) {
      Tensor q = leaf64({B, H, nq, 4}, 30), k = leaf64({B, H, 130, 4}, 31), v = leaf64({B, H, 130, 3}, 32);
      Tensor bias = bias_with_infs({1, H, nq, 130}, 33);
      FusedAttentionMask m{.causal = true, .key_padding_mask = padding(130), .additive_bias = bias};
      Tensor out = fused ? scaled_dot_product_attention(q, k, v, m, 0.3, true, &gen)
                         : detail::scaled_dot_product_attention_composed(q, k, v, m, 0.3, true, &gen);
      sum(square(out)).backward();
      return std::vector<Tensor>{out.detach(), q.grad(), k.grad(), v.grad(), bias.grad()};
    };
    Generator g1(7), g2(7);
    std::vector<Tensor> got = run(true, g1), want = run(false, g2);
    for (size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(allclose(got[i], want[i], 1e-10, 1e-12));
    }
    CHECK(g1.reserve(0) == g2.reserve(0));
  }
}

TEST_CASE("scaled_dot_product_attention: the bias gradient does not depend on the thread count") {
  const int threads = get_num_threads();
  for (const Shape& bshape : std::vector<Shape>{{1, H, 70, 129}, {1, 1, 70, 129}, {B, H, 70, 129}, {129}}) {
    CAPTURE(str(bshape));
    auto bias_grad = [&](int n) {
      set_num_threads(n);
      Tensor q = leaf64({B, H, 70, 4}, 40).detach(), k = leaf64({B, H, 129, 4}, 41).detach();
      Tensor v = leaf64({B, H, 129, 3}, 42).detach();
      Tensor bias = leaf64(bshape, 43);
      sum(square(scaled_dot_product_attention(q, k, v, {.causal = true, .additive_bias = bias}))).backward();
      return bias.grad();
    };
    Tensor one = bias_grad(1), two = bias_grad(2), four = bias_grad(4);
    CHECK(allclose(one, two, 0, 0));
    CHECK(allclose(one, four, 0, 0));
  }
  set_num_threads(threads);
}

TEST_CASE("scaled_dot_product_attention rejects a bad bias, fourier_attention any") {
  Tensor q = randn({1, 2, 3, 4}), k = randn({1, 2, 5, 4}), v = randn({1, 2, 5, 2});
  CHECK(throws_with(
      [&] {
        scaled_dot_product_attention(q, k, v, {.additive_bias = randn({1, 2, 4, 5})});
      },
      {"[scaled_dot_product_attention]", "additive_bias", "(1, 2, 4, 5)", "(1, 2, 3, 5)"}));
  CHECK(throws_with(
      [&] {
        scaled_dot_product_attention(q, k, v, {.additive_bias = randn({1, 1, 2, 3, 5})});
      },
      {"[scaled_dot_product_attention]", "(1, 1, 2, 3, 5)"}));
  CHECK(throws_with(
      [&] {
        scaled_dot_product_attention(q, k, v, {.additive_bias = randn({3, 5}, {.dtype = DType::Float64})});
      },
      {"[scaled_dot_product_attention]", "additive_bias", "float64", "float32"}));
  CHECK(throws_with(
      [&] {
        fourier_attention(q, k, v, ones({4}), 4, {.additive_bias = randn({3, 5})});
      },
      {"[fourier_attention]", "additive_bias"}));
}

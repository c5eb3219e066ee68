// Fused scaled dot-product attention (ops/scaled_dot_product_attention.h) against the composed
// nn::attention (the specification), its gradients, and the MultiheadAttention wiring
// (DotProductScore::attend); the CPU forward's direct path for a decoding step's query row
// against its tiled path.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <cmath>
#include <doctest/doctest.h>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/nn/attention.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"  // kSdpaDirectRows
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

namespace {

nn::AttentionMask nn_mask(const FusedAttentionMask& m) {
  return {.causal = m.causal, .key_padding_mask = m.key_padding_mask};
}

// q's rows computed by the CPU's tiled (BLAS) path: as the last rows of a call with more than
// kSdpaDirectRows rows. Causal masks are bottom-right aligned, so those rows see the same keys.
Tensor via_tiled_path(const Tensor& q, const Tensor& k, const Tensor& v, const FusedAttentionMask& m) {
  const int64_t extra = kSdpaDirectRows + 1;
  Generator gen(99);
  Tensor lead = randn({q.size(0), q.size(1), extra, q.size(3)}, {.dtype = q.dtype()}, &gen);
  Tensor out = scaled_dot_product_attention(cat({lead, q}, 2), k, v, m);
  return narrow(out, 2, extra, q.size(2));
}

}  // namespace

TEST_CASE("scaled_dot_product_attention matches nn::attention (causal, padding, Nq != Nk, dtypes)") {
  // Nk = 70 and Nq up to 130 cross the CPU kernel's 64-wide tiles.
  for (auto entry : {std::pair<int64_t, int64_t>{4, 5}, {5, 5}, {1, 70}, {130, 70}, {7, 3}}) {
    auto& nq = std::get<0>(entry);
    auto& nk = std::get<1>(entry);
    Tensor q = leaf64({2, 2, nq, 3}, 1).detach(), k = leaf64({2, 2, nk, 3}, 2).detach();
    Tensor v = leaf64({2, 2, nk, 2}, 3).detach();
    std::vector<int64_t> pv(2 * nk, 0);
    for (int64_t j = 0; j < nk; ++j) pv[nk + j] = 1;  // batch 1: every key padded
    pv[1] = 1;
    Tensor pad = bool_mask(pv, {2, nk});
    for (FusedAttentionMask m :
         {FusedAttentionMask{}, FusedAttentionMask{.causal = true}, FusedAttentionMask{.key_padding_mask = pad},
          FusedAttentionMask{.causal = true, .key_padding_mask = pad}}) {
      CAPTURE(nq);
      CAPTURE(nk);
      CAPTURE(m.causal);
      CHECK(allclose(scaled_dot_product_attention(q, k, v, m), nn::attention(q, k, v, nn_mask(m)), 1e-10, 1e-12));
      CHECK(allclose(scaled_dot_product_attention(q, k, v, m, 0, false, nullptr, 0.7),
                     nn::attention(q, k, v, nn_mask(m), 0, false, nullptr, 0.7), 1e-10, 1e-12));
      Tensor q32 = q.to(DType::Float32), k32 = k.to(DType::Float32), v32 = v.to(DType::Float32);
      CHECK(allclose(scaled_dot_product_attention(q32, k32, v32, m).to(DType::Float64),
                     nn::attention(q, k, v, nn_mask(m)), 1e-5, 1e-5));
    }
  }
}

TEST_CASE("scaled_dot_product_attention dropout draws the same Philox mask as nn::attention") {
  Tensor q = leaf64({2, 2, 67, 4}, 10).detach(), k = leaf64({2, 2, 67, 4}, 11).detach();
  Tensor v = leaf64({2, 2, 67, 3}, 12).detach();
  for (bool causal : {false, true}) {
    Generator g1(7), g2(7);
    Tensor fused = scaled_dot_product_attention(q, k, v, {.causal = causal}, 0.3, true, &g1);
    Tensor composed = nn::attention(q, k, v, {.causal = causal}, 0.3, true, &g2);
    CHECK(allclose(fused, composed, 1e-10, 1e-12));
    CHECK(g1.reserve(0) == g2.reserve(0));  // both advanced the stream by B H Nq Nk
  }
  Generator g(7);  // eval: no dropout
  CHECK(allclose(scaled_dot_product_attention(q, k, v, {}, 0.3, false, &g), nn::attention(q, k, v), 1e-10, 1e-12));
}

TEST_CASE("scaled_dot_product_attention gradcheck (float64): masks, decoding step, dropout") {
  Tensor pad = bool_mask({0, 0, 1, 0, 1, 1, 1, 1}, {2, 4});  // batch 1 fully padded: zero grads
  for (int mode = 0; mode < 4; ++mode) {
    CAPTURE(mode);
    FusedAttentionMask m{.causal = mode != 0};
    if (mode == 2) m.key_padding_mask = pad;
    const double drop = mode == 3 ? 0.3 : 0.0;
    auto f = [&](const std::vector<Tensor>& x) {
      Generator g(5);
      return scaled_dot_product_attention(x[0], x[1], x[2], m, drop, true, &g);
    };
    CHECK(gradcheck(f, {leaf64({2, 2, 3, 2}, 20), leaf64({2, 2, 4, 2}, 21), leaf64({2, 2, 4, 3}, 22)}));
  }
  // Longer than one tile in both directions, causal with Nq < Nk (a prompt continuing a cache).
  auto f = [](const std::vector<Tensor>& x) {
    return scaled_dot_product_attention(x[0], x[1], x[2], {.causal = true});
  };
  CHECK(gradcheck(f, {leaf64({1, 1, 66, 2}, 23), leaf64({1, 1, 70, 2}, 24), leaf64({1, 1, 70, 2}, 25)}));
}

TEST_CASE("scaled_dot_product_attention: fully masked rows give zeros and zero gradients, never NaN") {
  Tensor q = leaf64({1, 1, 3, 2}, 30), k = leaf64({1, 1, 2, 2}, 31), v = leaf64({1, 1, 2, 2}, 32);
  Tensor out = scaled_dot_product_attention(q, k, v, {.causal = true});  // Nq > Nk: row 0 sees nothing
  CHECK(allclose(select(select(select(out, 0, 0), 0, 0), 0, 0), std::vector<double>{0, 0}, 0, 0));
  sum(out).backward();
  for (const Tensor& t : {q.grad(), k.grad(), v.grad()})
    for (double x : t.to_vector()) CHECK(std::isfinite(x));
  CHECK(allclose(select(select(select(q.grad(), 0, 0), 0, 0), 0, 0), std::vector<double>{0, 0}, 0, 0));
}

TEST_CASE("scaled_dot_product_attention: the direct path (decoding rows) equals the tiled path and the composition") {
  // Nq <= kSdpaDirectRows takes the CPU's direct path. S crosses the tiled path's 128-key blocks;
  // D = 20 leaves a partial vector block (16 float / 8 double lanes).
  std::vector<int64_t> row_counts{1};
  if (kSdpaDirectRows > 1) row_counts.push_back(kSdpaDirectRows);
  for (int64_t D : {16, 20, 64})
    for (int64_t S : {1, 2, 127, 128, 129, 300})
      for (int64_t nq : row_counts) {
        Tensor q = leaf64({2, 3, nq, D}, 40).detach(), k = leaf64({2, 3, S, D}, 41).detach();
        Tensor v = leaf64({2, 3, S, D}, 42).detach();
        std::vector<int64_t> pv(2 * S, 0);
        for (int64_t j = 0; j < S; ++j) {
          pv[j] = j % 3 == 1;  // batch 0: every third key padded
          pv[S + j] = 1;       // batch 1: every key padded
        }
        Tensor pad = bool_mask(pv, {2, S});
        for (FusedAttentionMask m :
             {FusedAttentionMask{}, FusedAttentionMask{.causal = true}, FusedAttentionMask{.key_padding_mask = pad},
              FusedAttentionMask{.causal = true, .key_padding_mask = pad}}) {
          CAPTURE(D);
          CAPTURE(S);
          CAPTURE(nq);
          CAPTURE(m.causal);
          CAPTURE(m.key_padding_mask.defined());
          Tensor reference = detail::scaled_dot_product_attention_composed(q, k, v, m);  // float64
          Tensor direct = scaled_dot_product_attention(q, k, v, m);
          CHECK(allclose(direct, via_tiled_path(q, k, v, m), 1e-12, 1e-13));
          CHECK(allclose(direct, reference, 1e-10, 1e-12));
          Tensor q32 = q.to(DType::Float32), k32 = k.to(DType::Float32), v32 = v.to(DType::Float32);
          Tensor direct32 = scaled_dot_product_attention(q32, k32, v32, m);
          CHECK(direct32.dtype() == DType::Float32);
          CHECK(allclose(direct32, via_tiled_path(q32, k32, v32, m), 1e-5, 1e-6));
          CHECK(allclose(direct32.to(DType::Float64), reference, 1e-5, 1e-5));
          // Rows that see no key (batch 1 padded; causal rows above the diagonal when S < nq) are
          // exactly zero, as on the tiled path.
          if (m.key_padding_mask.defined()) CHECK(allclose(select(direct32, 0, 1), zeros({3, nq, D}), 0, 0));
          if (m.causal && S < nq)
            CHECK(allclose(narrow(direct, 2, 0, nq - S), zeros({2, 3, nq - S, D}, {.dtype = DType::Float64}), 0, 0));
        }
      }
}

TEST_CASE("scaled_dot_product_attention: one query row, dropout draws nn::attention's mask") {
  Tensor q = leaf64({2, 2, 1, 4}, 50).detach(), k = leaf64({2, 2, 130, 4}, 51).detach();
  Tensor v = leaf64({2, 2, 130, 3}, 52).detach();
  Generator g1(8), g2(8);
  Tensor fused = scaled_dot_product_attention(q, k, v, {.causal = true}, 0.3, true, &g1);
  CHECK(allclose(fused, nn::attention(q, k, v, {.causal = true}, 0.3, true, &g2), 1e-10, 1e-12));
  CHECK(g1.reserve(0) == g2.reserve(0));
}

TEST_CASE("scaled_dot_product_attention gradcheck (float64) through the direct path (one query row)") {
  // The backward stays on the tiled kernel, fed the direct path's out and lse.
  Tensor pad = bool_mask({0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5});  // batch 1 fully padded: zero grads
  for (int mode = 0; mode < 4; ++mode) {
    CAPTURE(mode);
    FusedAttentionMask m{.causal = mode == 1};
    if (mode == 2) m.key_padding_mask = pad;
    const double drop = mode == 3 ? 0.3 : 0.0;
    auto f = [&](const std::vector<Tensor>& x) {
      Generator g(6);
      return scaled_dot_product_attention(x[0], x[1], x[2], m, drop, true, &g);
    };
    CHECK(gradcheck(f, {leaf64({2, 2, 1, 3}, 60), leaf64({2, 2, 5, 3}, 61), leaf64({2, 2, 5, 2}, 62)}));
  }
}

TEST_CASE("MultiheadAttention uses the fused op: equal to the composed path, KV-cache decoding") {
  Generator gen(3);
  nn::MultiheadAttention mha(8, 2, {.dropout = 0.0}, &gen);
  Tensor x = randn({2, 5, 8}, {}, &gen);
  Tensor fused = mha.forward(x, x, x, {.causal = true});
  // An all-false attn_mask takes the composed path and must give the same numbers.
  Tensor composed = mha.forward(x, x, x, {.causal = true, .attn_mask = zeros({5, 5}, {.dtype = DType::Bool})});
  CHECK(allclose(fused, composed, 1e-5, 1e-6));
  // Decoding one token at a time through the cache (Nq = 1, Nk = t) equals the full pass.
  nn::KVCache cache;
  for (int64_t t = 0; t < 5; ++t) {
    Tensor xt = narrow(x, 1, t, 1);
    Tensor step = mha.forward(xt, xt, xt, {.causal = true}, &cache);
    CHECK(allclose(step, narrow(fused, 1, t, 1), 1e-5, 1e-6));
  }
}

TEST_CASE("scaled_dot_product_attention rejects bad arguments") {
  Tensor q = randn({1, 2, 3, 4}), k = randn({1, 2, 5, 4}), v = randn({1, 2, 5, 2});
  CHECK(throws_with(
      [&] {
        scaled_dot_product_attention(q, randn({1, 2, 5, 3}), v);
      },
      {"[scaled_dot_product_attention]", "(1, 2, 5, 3)"}));
  CHECK(throws_with([&] { scaled_dot_product_attention(q, k, v.to(DType::Float64)); },
                    {"[scaled_dot_product_attention]", "float64"}));
  CHECK(throws_with(
      [&] {
        scaled_dot_product_attention(q, k, v, {.key_padding_mask = zeros({1, 4}, {.dtype = DType::Bool})});
      },
      {"[scaled_dot_product_attention]", "key_padding_mask", "(1, 4)"}));
  CHECK(throws_with([&] { scaled_dot_product_attention(q, k, v, {}, 1.0, true); },
                    {"[scaled_dot_product_attention]", "dropout_p"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] scaled_dot_product_attention matches the CPU (masks, Nq != Nk, dropout, dtypes)") {
  announce_targets();
  const Tensor pad = ne(from_vector(std::vector<int64_t>{0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5}),
                        zeros({2, 5}, {.dtype = DType::Int64}));  // batch 1: every key padded
  for (DType dt : {DType::Float64, DType::Float32})
    for (int mode = 0; mode < 4; ++mode) {  // none, causal, padding, causal + padding + dropout
      CAPTURE(mode);
      const std::vector<Tensor> inputs = {normal({2, 2, 4, 3}, 1, dt), normal({2, 2, 5, 3}, 2, dt),
                                          normal({2, 2, 5, 2}, 3, dt), pad};
      check_against_cpu(
          "scaled_dot_product_attention",
          [=](const std::vector<Tensor>& x) {
            FusedAttentionMask m{.causal = mode == 1 || mode == 3};
            if (mode >= 2) m.key_padding_mask = x[3];
            Generator gen(7);  // fresh per call: the same dropout mask on every target
            return scaled_dot_product_attention(x[0], x[1], x[2], m, mode == 3 ? 0.3 : 0.0, true, &gen);
          },
          inputs);
    }
}

}  // namespace cuda_cases

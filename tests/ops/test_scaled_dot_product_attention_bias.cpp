// The fused scaled_dot_product_attention's additive bias (mask.additive_bias, T5's relative
// position bias) against the composed nn::attention / composed twin: every broadcast shape,
// with padding and causal masks, -inf entries and fully -inf rows, the direct (one query row)
// and tiled paths across the 128-key tile, dropout, float64 gradchecks of q, k, v and the bias,
// a bias gradient independent of the thread count, and the argument errors.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <cmath>
#include <doctest/doctest.h>
#include <limits>
#include <string>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/core/random.h"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/models/t5.h"
#include "harmonic/nn/attention.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

constexpr int64_t B = 2, H = 3;

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

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

namespace {

constexpr int64_t B = 2, H = 3, D = 3, Dv = 2;

Tensor normal(const Shape& shape, uint64_t seed, DType dtype) {
  Generator gen(seed);
  return randn(shape, {.dtype = dtype}, &gen);
}

// A bias (bb, hb, nq, nk), nq >= 3, with entry (0, 0, 0, 1) = -inf and row 2 of slice (0, 0) all
// -inf: a fully masked row for every (b, h) the slice covers.
Tensor bias_with_infs(int64_t bb, int64_t hb, int64_t nq, int64_t nk, uint64_t seed, DType dtype) {
  Tensor b = normal({bb, hb, nq, nk}, seed, DType::Float64);
  double* p = b.data<double>();
  p[1] = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < nk; ++j) p[2 * nk + j] = -std::numeric_limits<double>::infinity();
  return b.to(dtype);
}

// Padding (B, nk): batch 0 key 1, batch 1 its last key.
Tensor padding(int64_t nk) {
  std::vector<int64_t> pv(B * nk, 0);
  pv[1] = 1, pv[B * nk - 1] = 1;
  return ne(from_vector(pv, {B, nk}), zeros({B, nk}, {.dtype = DType::Int64}));
}

struct Case {
  int64_t nq, nk, bb, hb;
  int mode;  // 0 none, 1 causal, 2 padding, 3 causal + padding + dropout
  DType dtype;
  bool causal() const { return mode == 1 || mode == 3; }
  bool padded() const { return mode >= 2; }
  double dropout() const { return mode == 3 ? 0.3 : 0.0; }
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (DType dt : {DType::Float64, DType::Float32})
    for (auto [nq, nk] : std::vector<std::pair<int64_t, int64_t>>{{4, 5}, {5, 3}})  // Nq > Nk: causal rows see nothing
      for (auto [bb, hb] : std::vector<std::pair<int64_t, int64_t>>{{1, H}, {B, H}, {1, 1}, {B, 1}})
        for (int mode = 0; mode < 4; ++mode) all.push_back({nq, nk, bb, hb, mode, dt});
  return all;
}

// Inputs on the CPU: q, k, v, the padding (or undefined), the bias, the output gradient.
std::vector<Tensor> inputs_of(const Case& c) {
  return {normal({B, H, c.nq, D}, 1, c.dtype),
          normal({B, H, c.nk, D}, 2, c.dtype),
          normal({B, H, c.nk, Dv}, 3, c.dtype),
          c.padded() ? padding(c.nk) : Tensor(),
          bias_with_infs(c.bb, c.hb, c.nq, c.nk, 4, c.dtype),
          normal({B, H, c.nq, Dv}, 5, c.dtype)};
}

struct SlotOutputs {
  std::vector<Tensor> all;  // out, lse, dq, dk, dv, dbias, on the CPU
};

// The forward and backward slots on `device` (the CPU kernels, or the host twins inside a
// HostEmulation), called directly so that lse and the unreduced dbias (bb, hb, nq, nk) are seen.
SlotOutputs run_slots(const Case& c, const std::vector<Tensor>& x, Device device) {
  auto on = [&](const Tensor& t) { return t.defined() ? t.to(device).contiguous() : Tensor(); };
  const Tensor q = on(x[0]), k = on(x[1]), v = on(x[2]), pad = on(x[3]), bias = on(x[4]), g = on(x[5]);
  const SdpaArgs args{.scale = 0.6, .causal = c.causal(), .dropout_p = c.dropout(), .seed = 7, .offset = 3};
  auto empty = [&](const Shape& s) { return Tensor::empty(s, c.dtype, device); };
  Tensor out = empty({B, H, c.nq, Dv}), lse = empty({B, H, c.nq});
  sdpa_kernel(device, q, k, v, pad, bias, args, out, lse);
  Tensor dq = empty(q.shape()), dk = empty(k.shape()), dv = empty(v.shape()), dbias = empty(bias.shape());
  sdpa_backward_kernel(device, q, k, v, pad, bias, out, lse, g, args, dq, dk, dv, dbias);
  SlotOutputs r;
  for (const Tensor& t : {out, lse, dq, dk, dv, dbias}) r.all.push_back(t.to(Device::cpu()));
  return r;
}

std::string describe(const Case& c) {
  return fmt::format("Nq {} Nk {} bias ({}, {}, Nq, Nk) mode {} {}", c.nq, c.nk, c.bb, c.hb, c.mode,
                     dtype_name(c.dtype));
}

// Sets `fused` on every DotProductScore under m (false: the composed path everywhere).
void set_fused(nn::Module& m, bool fused) {
  for (auto& [name, child] : m.named_children()) {
    if (auto score = std::dynamic_pointer_cast<nn::DotProductScore>(child)) score->fused = fused;
    set_fused(*child, fused);
  }
}

}  // namespace

TEST_CASE("[cuda] scaled_dot_product_attention kernels with a bias match the CPU's (out, lse, dq, dk, dv, dbias)") {
  announce_targets();
  const char* names[] = {"out", "lse", "dq", "dk", "dv", "dbias"};
  for (const Case& c : cases()) {
    CAPTURE(describe(c));
    const std::vector<Tensor> x = inputs_of(c);
    const SlotOutputs ref = run_slots(c, x, Device::cpu());
    // The all -inf bias row 2 of (b, h) = (0, 0): a fully masked row, lse -inf, zeros, no gradient.
    CHECK(ref.all[1].to(DType::Float64).data<double>()[2] == -std::numeric_limits<double>::infinity());
    for_each_device([&](const Target& t) {
      const SlotOutputs got = run_slots(c, x, t.device);
      for (size_t i = 0; i < got.all.size(); ++i)
        check_close(ref.all[i], got.all[i], std::string(names[i]) + " on " + t.name + ", " + describe(c));
    });
  }
}

TEST_CASE("[cuda] scaled_dot_product_attention with a bias matches the CPU (output and q, k, v, bias gradients)") {
  announce_targets();
  for (const Case& c : cases()) {
    CAPTURE(describe(c));
    const std::vector<Tensor> x = inputs_of(c);
    const Tensor pad = x[3];
    check_against_cpu("scaled_dot_product_attention with a bias, " + describe(c),
                      [=](const std::vector<Tensor>& in) {
                        FusedAttentionMask m{.causal = c.causal(), .key_padding_mask = pad, .additive_bias = in[3]};
                        Generator gen(7);  // fresh per call: the same dropout mask on every target
                        return scaled_dot_product_attention(in[0], in[1], in[2], m, c.dropout(), true, &gen);
                      },
                      {x[0], x[1], x[2], x[4]});
  }
}

TEST_CASE("[cuda] a biased attention runs fused on every target, and T5 on the CUDA kernels matches the CPU") {
  announce_targets();
  // nn::DotProductScore with an additive bias: the fused op (its tape node) on every device.
  const DType f64 = DType::Float64;
  const Tensor q0 = normal({B, H, 4, D}, 11, f64), k0 = normal({B, H, 5, D}, 12, f64);
  const Tensor v0 = normal({B, H, 5, Dv}, 13, f64), bias0 = bias_with_infs(1, H, 4, 5, 14, f64);
  const Tensor expected =
      detail::scaled_dot_product_attention_composed(q0, k0, v0, {.additive_bias = bias0}, 0.0, false, nullptr, 0.5);
  nn::DotProductScore score(0.5);
  cuda::ScopedSdpaPath kernels(cuda::SdpaPath::Reference);  // on a device, Auto would take the composed form
  for_each_device([&](const Target& t) {
    Tensor bias = bias0.to(t.device).clone().requires_grad_(true);
    Tensor out =
        score.attend(q0.to(t.device), k0.to(t.device), v0.to(t.device), {.additive_bias = bias}, 0.0, false, nullptr);
    REQUIRE(out.grad_fn());
    CHECK(out.grad_fn()->name == "scaled_dot_product_attention");
    check_close(expected, out.detach().to(Device::cpu()), "DotProductScore with a bias on " + t.name);
  });

  // A float64 T5 in training mode (dropout 0.1): its encoder and decoder self-attentions carry
  // the relative position bias (1, H, Nq, Nk). Reference: the composed path on the CPU kernels.
  models::T5Config c;
  c.vocab_size = 13, c.d_model = 8, c.d_kv = 3, c.num_heads = 2, c.d_ff = 10;
  c.num_layers = 2, c.num_decoder_layers = 2;
  c.relative_attention_num_buckets = 8, c.relative_attention_max_distance = 12;
  c.dropout_rate = 0.1;
  const Tensor in = from_vector(std::vector<int64_t>{3, 7, 1, 9, 0, 2, 4, 6, 8, 10, 11, 12, 5, 5}, {2, 7});
  const Tensor mask = from_vector(std::vector<int64_t>{1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1}, {2, 7});
  const Tensor dec = from_vector(std::vector<int64_t>{0, 5, 2, 7, 1, 0, 1, 3, 3, 12}, {2, 5});
  auto run = [&](Device device, bool fused) {
    Generator gen(17);
    models::T5 t5(c, &gen);
    t5.to(DType::Float64);
    t5.to(device);
    t5.train();
    set_fused(t5, fused);
    Tensor logits = t5.forward(in.to(device), mask.to(device), dec.to(device));  // (2, 5, V)
    sum(square(logits)).backward();
    std::vector<Tensor> out{logits.detach().to(Device::cpu())};
    for (auto& [name, p] : t5.named_parameters()) {
      REQUIRE(p.grad().defined());
      out.push_back(p.grad().to(Device::cpu()));
    }
    return out;
  };
  const std::vector<Tensor> ref = run(Device::cpu(), false);
  for_each_device([&](const Target& t) {
    const std::vector<Tensor> got = run(t.device, true);
    REQUIRE(got.size() == ref.size());
    for (size_t i = 0; i < got.size(); ++i)
      check_close(ref[i], got[i], (i == 0 ? "T5 logits" : "T5 gradient " + std::to_string(i)) + " on " + t.name);
  });
}

}  // namespace cuda_cases

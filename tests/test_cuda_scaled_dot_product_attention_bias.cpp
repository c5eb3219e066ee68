// The CUDA kernels of the fused attention with an additive bias (cuda/scaled_dot_product_attention.cu)
// against the CPU kernels (tests/device_harness.h: on cuda:0 when present, and in CUDA builds
// through the kernels' host twins): every bias shape the kernels take, (1, H), (B, H), (1, 1) and
// (B, 1) over (Nq, Nk), each with a -inf entry and an all -inf row, with padding and causal masks,
// Nq < Nk and Nq > Nk, dropout, float32 and float64. Compared: the slots' out, lse, dq, dk, dv
// and dbias (the reduction over a shared b or h), and the op's output and gradients through
// autograd. Then the dispatch: nn::DotProductScore sends a biased attention to the fused op on
// every target, and a T5 (its relative position bias) on the CUDA kernels equals the CPU's
// composed path.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "autograd/node.h"
#include "core/factories.h"
#include "core/random.h"
#include "models/t5.h"
#include "nn/attention.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/scaled_dot_product_attention.h"
#include "ops/scaled_dot_product_attention_kernels.h"
#include "tests/device_harness.h"

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
  ScopedSdpaPath kernels(SdpaPath::Reference);  // on a device, Auto would take the composed form
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

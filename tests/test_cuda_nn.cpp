// CUDA kernels of the matrix products, nn functions and optimizer updates against the CPU
// (tests/device_harness.h): on cuda:0 when present, and always in CUDA builds through the
// kernels' host twins (the device kernels' per-thread code run on the CPU). Forward and
// every input gradient are compared with the normalised error mse(ref, got) / mse(ref, 0)
// (default 1e-7; exact where the kernels do the same arithmetic as the CPU, e.g. dropout).
#include <doctest/doctest.h>

#include "core/factories.h"
#include "core/random.h"
#include "ops/autocast.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/linalg_kernels.h"
#include "ops/nn_functional.h"
#include "ops/nn_kernels.h"
#include "ops/reduce.h"
#include "ops/scaled_dot_product_attention.h"
#include "ops/shape_ops.h"
#include "optim/adam.h"
#include "optim/optim_kernels.h"
#include "tests/device_harness.h"

using namespace hm;
using namespace hm::test;

namespace {

Tensor normal(const Shape& shape, uint64_t seed, DType dtype = DType::Float64) {
  Generator gen(seed);
  return randn(shape, {.dtype = dtype}, &gen);
}

// Class indices in [0, classes) with every `ignore_every`-th replaced by -100.
Tensor class_targets(const Shape& shape, int64_t classes, uint64_t seed, int64_t ignore_every = 0) {
  Generator gen(seed);
  Tensor u = rand(shape, {.dtype = DType::Float64}, &gen);
  std::vector<double> v = u.to_vector();
  std::vector<int64_t> t(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    t[i] = std::min<int64_t>(classes - 1, static_cast<int64_t>(v[i] * static_cast<double>(classes)));
    if (ignore_every > 0 && i % ignore_every == 1) t[i] = -100;
  }
  return from_vector(t, shape);
}

}  // namespace

// -- matrix products ------------------------------------------------------------------------

TEST_CASE("[cuda] matmul and linear match the CPU") {
  announce_targets();
  auto transposed = [](const Tensor& x) { return view(x, {x.size(1), x.size(0)}, {1, x.size(1)}); };
  check_against_cpu("mm", [](auto& x) { return matmul(x[0], x[1]); }, {normal({5, 7}, 1), normal({7, 3}, 2)});
  check_against_cpu("mm transposed operands", [&](auto& x) { return matmul(transposed(x[0]), transposed(x[1])); },
                    {normal({7, 5}, 3), normal({3, 7}, 4)});
  check_against_cpu("vector @ matrix", [](auto& x) { return matmul(x[0], x[1]); }, {normal({4}, 5), normal({4, 6}, 6)});
  check_against_cpu("matrix @ vector", [](auto& x) { return matmul(x[0], x[1]); }, {normal({6, 4}, 7), normal({4}, 8)});
  // One batch dim (cuBLAS's strided batch), broadcast (stride 0), and two batch dims that do
  // not merge (the host loop over the outer one).
  check_against_cpu("batched", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({3, 4, 5}, 9), normal({3, 5, 2}, 10)});
  check_against_cpu("broadcast batch", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({3, 4, 5}, 11), normal({5, 2}, 12)});
  check_against_cpu("two batch dims", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({2, 1, 4, 5}, 13), normal({3, 5, 6}, 14)});
  check_against_cpu("empty inner dim", [](auto& x) { return matmul(x[0], x[1]); }, {zeros({3, 0}), zeros({0, 4})});
  check_against_cpu("linear with bias", [](auto& x) { return linear(x[0], x[1], x[2]); },
                    {normal({2, 3, 5}, 15), normal({4, 5}, 16), normal({4}, 17)});
  check_against_cpu(
      "linear float32", [](auto& x) { return linear(x[0], x[1]); },
      {normal({6, 5}, 18, DType::Float32), normal({3, 5}, 19, DType::Float32)}, 1e-10);
}

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("cuda nn kernels are bound with host twins") {
  auto names = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k :
       {"gemm", "softmax", "softmax_backward", "cross_entropy", "cross_entropy_backward", "nll_loss",
        "nll_loss_backward", "mse_loss", "mse_loss_backward", "layer_norm", "layer_norm_backward", "rms_norm",
        "rms_norm_backward", "embedding", "embedding_backward", "dropout", "sgd", "adam"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), k) != names.end(), k);
}

TEST_CASE("[cuda] bfloat16 GEMM host twin: bf16-rounded inputs, float32 accumulation") {
  // The mixed GEMM of autocast (GemmDesc dtype BFloat16: A, B bf16; C, bias float32) run by
  // its host twin, against a float64 product of the same bf16-rounded values. Only the
  // float32 accumulation differs: normalised error ~1e-14, checked at 1e-11.
  Tensor a = normal({2, 5, 33}, 21, DType::Float32), b = normal({33, 7}, 22, DType::Float32);
  Tensor bias = normal({7}, 23, DType::Float32);
  Tensor a16 = a.to(DType::BFloat16), b16 = b.to(DType::BFloat16);
  Tensor ref = add(matmul(a16.to(DType::Float64), b16.to(DType::Float64)), bias.to(DType::Float64));
  Tensor got = zeros({2, 5, 7});
  GemmDesc d;
  d.dtype = DType::BFloat16;
  d.m = 5, d.n = 7, d.k = 33;
  d.a = a16.raw_data(), d.lda = 33;
  d.b = b16.raw_data(), d.ldb = 7;
  d.c = got.raw_data(), d.ldc = 7;
  d.bias = bias.raw_data();
  d.batch = {2}, d.batch_a = {5 * 33}, d.batch_b = {0}, d.batch_c = {5 * 7};
  {
    cuda::HostEmulation twins;
    gemm_kernel(Device::cpu(), d);
  }
  check_close(ref, got.to(DType::Float64), "bf16 gemm twin", 1e-11);
  // bf16 rounding itself is far from free: against the unrounded product the error is ~1e-5.
  CHECK(normalized_error(add(matmul(a, b), bias).to(DType::Float64), got.to(DType::Float64)) > 1e-8);
}
#endif

TEST_CASE("[cuda] autocast linear and matmul: bf16 GEMMs, float32 results and gradients") {
  // Reference: float64 products of the bf16-rounded operands (and, in backward, of the
  // bf16-rounded incoming gradient, which autocast also feeds to bf16 GEMMs). Only float32
  // accumulation and output rounding remain: normalised error ~1e-14, checked at 1e-11.
  announce_targets();
  auto r16 = [](const Tensor& t) { return t.to(DType::BFloat16).to(DType::Float64); };
  const Tensor x = normal({4, 3, 33}, 35, DType::Float32), w = normal({7, 33}, 36, DType::Float32);
  const Tensor b = normal({7}, 37, DType::Float32), g = normal({4, 3, 7}, 38, DType::Float32);
  const Tensor x16 = r16(x), w16 = r16(w), g16 = r16(g);
  const Tensor out_ref = linear(x16, w16, b.to(DType::Float64));
  const Tensor dx_ref = matmul(g16, w16);                                                        // (4, 3, 33)
  const Tensor dw_ref = matmul(transpose(reshape(g16, {12, 7}), 0, 1), reshape(x16, {12, 33}));  // (7, 33)
  const Tensor db_ref = sum(g.to(DType::Float64), {0, 1});
  const Tensor m_ref = matmul(x16, transpose(w16, 0, 1));  // (4, 3, 7)
  for_each_device([&](const Target& t) {
    set_autocast_cpu_for_tests(t.emulate);
    auto leaf = [&](const Tensor& v) { return v.detach().to(t.device).detach().requires_grad_(true); };
    Tensor xd = leaf(x), wd = leaf(w), bd = leaf(b);
    Tensor out, m;
    {
      AutocastGuard guard(DType::BFloat16);
      out = linear(xd, wd, bd);
      m = matmul(xd, transpose(wd, 0, 1));
    }
    set_autocast_cpu_for_tests(false);
    CHECK(out.dtype() == DType::Float32);
    INFO(t.name);
    check_close(out_ref, out.detach().to(Device::cpu()).to(DType::Float64), "autocast linear", 1e-11);
    check_close(m_ref, m.detach().to(Device::cpu()).to(DType::Float64), "autocast matmul", 1e-11);
    out.backward(g.to(t.device));  // backward after the guard has ended: still bf16 GEMMs
    REQUIRE(xd.grad().defined());
    CHECK(xd.grad().dtype() == DType::Float32);
    CHECK(wd.grad().dtype() == DType::Float32);
    check_close(dx_ref, xd.grad().to(Device::cpu()).to(DType::Float64), "autocast dx", 1e-11);
    check_close(dw_ref, wd.grad().to(Device::cpu()).to(DType::Float64), "autocast dweight", 1e-11);
    check_close(db_ref, bd.grad().to(Device::cpu()).to(DType::Float64), "autocast dbias", 1e-11);
    xd.zero_grad(), wd.zero_grad();
    m.backward(g.to(t.device));
    check_close(dx_ref, xd.grad().to(Device::cpu()).to(DType::Float64), "autocast matmul dx", 1e-11);
    check_close(dw_ref, wd.grad().to(Device::cpu()).to(DType::Float64), "autocast matmul dweight", 1e-11);
  });
}

TEST_CASE("[cuda] autocast: a no-op on the CPU, and the guard's rules") {
  Tensor x = normal({4, 6}, 31, DType::Float32).requires_grad_(true);
  Tensor w = normal({3, 6}, 32, DType::Float32).requires_grad_(true);
  Tensor plain = linear(x, w);
  sum(mul(plain, plain)).backward();
  Tensor gx = x.grad().clone(), gw = w.grad().clone();
  x.zero_grad(), w.zero_grad();
  CHECK_FALSE(autocast_dtype().has_value());
  {
    AutocastGuard guard(DType::BFloat16);
    CHECK(autocast_dtype() == DType::BFloat16);
    {
      AutocastGuard off(std::nullopt);
      CHECK_FALSE(autocast_dtype().has_value());
    }
    CHECK(autocast_dtype() == DType::BFloat16);
    Tensor cast = linear(x, w);
    CHECK(cast.dtype() == DType::Float32);
    CHECK(same_values(plain.detach(), cast.detach()));
    sum(mul(cast, cast)).backward();
  }
  CHECK_FALSE(autocast_dtype().has_value());
  CHECK(same_values(gx, x.grad()));
  CHECK(same_values(gw, w.grad()));
  CHECK(throws_with([] { AutocastGuard g(DType::Float64); }, {"[AutocastGuard]", "bfloat16"}));
  CHECK_FALSE(cuda::allow_tf32());  // TF32 is opt-in
}

// -- softmax and losses ---------------------------------------------------------------------

TEST_CASE("[cuda] softmax and log_softmax match the CPU") {
  announce_targets();
  Tensor x = normal({3, 4, 5}, 41);
  for (int64_t dim : {-1, 0, 1})  // rows (inner 1) and columns (inner > 1)
    for (bool log : {false, true})
      check_against_cpu(log ? "log_softmax" : "softmax",
                        [&](auto& in) { return log ? log_softmax(in[0], dim) : softmax(in[0], dim); }, {x});
  // Long rows take a whole block per row; float32.
  check_against_cpu(
      "softmax long rows", [](auto& in) { return softmax(in[0], -1); },
      {mul(normal({3, 1500}, 42, DType::Float32), 4.0)}, 1e-10);
  check_against_cpu("log_softmax long rows", [](auto& in) { return log_softmax(in[0], -1); }, {normal({2, 2100}, 43)});
  check_against_cpu("softmax permuted input",
                    [](auto& in) {
                      return softmax(view(in[0], {5, 3, 4}, {1, 20, 5}), 1);
                    },
                    {x});
}

TEST_CASE("[cuda] cross_entropy and nll_loss match the CPU") {
  announce_targets();
  Tensor logits = normal({6, 5}, 51), target = class_targets({6}, 5, 52, 4);  // two ignored
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    for (double eps : {0.0, 0.2}) {
      CrossEntropyOptions o{.label_smoothing = eps, .reduction = r};
      check_against_cpu("cross_entropy", [&](auto& in) { return cross_entropy(in[0], in[1], o); }, {logits, target});
      if (eps == 0.0)
        check_against_cpu("nll_loss", [&](auto& in) { return nll_loss(log_softmax(in[0], 1), in[1], o); },
                          {logits, target});
    }
  // (N, C, d) with the class dim in the middle (column kernels), and long rows.
  Tensor l3 = normal({2, 4, 3}, 53), t3 = class_targets({2, 3}, 4, 54, 5);
  check_against_cpu("cross_entropy (N, C, d)",
                    [&](auto& in) { return cross_entropy(in[0], in[1], {.label_smoothing = 0.1}); }, {l3, t3});
  check_against_cpu("nll_loss (N, C, d)", [&](auto& in) { return nll_loss(in[0], in[1]); }, {l3, t3});
  check_against_cpu(
      "cross_entropy long rows", [&](auto& in) { return cross_entropy(in[0], in[1]); },
      {normal({3, 1300}, 55, DType::Float32), class_targets({3}, 1300, 56)}, 1e-10);
  check_against_cpu("cross_entropy all ignored", [&](auto& in) { return cross_entropy(in[0], in[1]); },
                    {logits, full({6}, -100.0, {.dtype = DType::Int64})});  // 0/0 = NaN on both
  for_each_device([&](const Target& t) {
    Tensor bad = from_vector(std::vector<int64_t>{0, 7, 1, 2, 3, 4}, {6}).to(t.device);
    CHECK(throws_with([&] { cross_entropy(logits.to(t.device), bad); }, {"[cross_entropy]", "target 7", "position 1"}));
    CHECK(throws_with([&] { nll_loss(logits.to(t.device), bad); }, {"[nll_loss]", "target 7"}));
  });
}

TEST_CASE("[cuda] mse_loss matches the CPU") {
  announce_targets();
  Tensor a = normal({4, 7}, 61), b = normal({4, 7}, 62);
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    check_against_cpu("mse_loss", [&](auto& in) { return mse_loss(in[0], in[1], r); }, {a, b});
  check_against_cpu(
      "mse_loss large", [&](auto& in) { return mse_loss(in[0], in[1]); },
      {normal({70000}, 63, DType::Float32), normal({70000}, 64, DType::Float32)}, 1e-10);
}

// -- norms, embedding, dropout ----------------------------------------------------------------

TEST_CASE("[cuda] layer_norm and rms_norm match the CPU") {
  announce_targets();
  Tensor x = normal({4, 3, 10}, 71), w = normal({10}, 72), b = normal({10}, 73);
  check_against_cpu("layer_norm affine", [](auto& in) { return layer_norm(in[0], {10}, in[1], in[2]); }, {x, w, b});
  check_against_cpu("layer_norm weight only", [](auto& in) { return layer_norm(in[0], {10}, in[1]); }, {x, w});
  check_against_cpu("layer_norm plain", [](auto& in) { return layer_norm(in[0], {3, 10}); }, {x});
  check_against_cpu("rms_norm", [](auto& in) { return rms_norm(in[0], in[1]); }, {x, w});
  check_against_cpu("rms_norm plain", [](auto& in) { return rms_norm(in[0]); }, {x});
  // Long rows (a block per row) and many rows (several column-sum chunks); float32.
  Tensor xl = normal({300, 1100}, 74, DType::Float32), wl = normal({1100}, 75, DType::Float32);
  Tensor bl = normal({1100}, 76, DType::Float32);
  check_against_cpu(
      "layer_norm long rows", [](auto& in) { return layer_norm(in[0], {1100}, in[1], in[2]); }, {xl, wl, bl}, 1e-10);
  check_against_cpu(
      "rms_norm long rows", [](auto& in) { return rms_norm(in[0], in[1]); }, {xl, wl}, 1e-10);
}

TEST_CASE("[cuda] embedding and dropout match the CPU") {
  announce_targets();
  Tensor table = normal({9, 4}, 81);
  Tensor idx = from_vector(std::vector<int64_t>{3, 0, 3, 8, 2, 3, 5, 0}, {2, 4});  // repeats
  check_against_cpu("embedding", [&](auto& in) { return embedding(in[0], in[1]); }, {table, idx});
  check_against_cpu("embedding padding", [&](auto& in) { return embedding(in[0], in[1], 3); }, {table, idx});
  for (DType dt : {DType::Float32, DType::Float64})
    for (double p : {0.0, 0.3, 1.0})
      check_against_cpu(
          "dropout",
          [&](auto& in) {
            Generator gen(77);  // the same draw on every target
            return dropout(in[0], p, true, &gen);
          },
          {normal({5, 7, 3}, 82, dt)}, 0.0);  // masks agree bit for bit
  for_each_device([&](const Target& t) {
    Tensor bad = from_vector(std::vector<int64_t>{1, 9}, {2}).to(t.device);
    CHECK(throws_with([&] { embedding(table.to(t.device), bad); }, {"[embedding]", "index 9", "position 1"}));
  });
}

// -- optimizers -------------------------------------------------------------------------------

TEST_CASE("[cuda] sgd and adam kernels match the CPU") {
  announce_targets();
  for (DType dt : {DType::Float32, DType::Float64}) {
    const Tensor p0 = normal({37}, 91, dt), g = normal({37}, 92, dt), s0 = abs(normal({37}, 93, dt));
    auto sgd_steps = [&](Device dev, bool nesterov) {
      Tensor p = p0.to(dev).clone(), buf = Tensor::empty({37}, dt, dev), gd = g.to(dev);
      for (int step = 0; step < 3; ++step)
        optim::sgd_kernel(dev, p, gd, buf,
                          {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = nesterov, .first = step == 0});
      optim::sgd_kernel(dev, p, gd, Tensor(), {.lr = 0.05, .maximize = true});  // no momentum
      return p.to(Device::cpu());
    };
    auto adam_steps = [&](Device dev, bool amsgrad, bool decoupled) {
      Tensor p = p0.to(dev).clone(), m = zeros({37}, {.dtype = dt, .device = dev});
      Tensor v = s0.to(dev).clone(), vmax = zeros({37}, {.dtype = dt, .device = dev}), gd = g.to(dev);
      for (int64_t step = 1; step <= 3; ++step)
        optim::adam_kernel(dev, p, gd, m, v, amsgrad ? vmax : Tensor(),
                           {.lr = 1e-2, .weight_decay = 0.1, .step = step, .decoupled = decoupled, .amsgrad = amsgrad});
      return cat({p, m, v}).to(Device::cpu());
    };
    for_each_device([&](const Target& t) {
      INFO(t.name << " " << dtype_name(dt));
      for (bool nesterov : {false, true})
        check_close(on_cpu([&] { return sgd_steps(Device::cpu(), nesterov); }), sgd_steps(t.device, nesterov), "sgd",
                    1e-12);
      for (bool amsgrad : {false, true})
        for (bool decoupled : {false, true})
          check_close(on_cpu([&] { return adam_steps(Device::cpu(), amsgrad, decoupled); }),
                      adam_steps(t.device, amsgrad, decoupled), "adam", 1e-12);
    });
  }
}

TEST_CASE("[cuda] three AdamW training steps of a small network match the CPU") {
  // embedding -> layer_norm -> linear -> dropout -> cross_entropy, AdamW: every kernel of
  // this file in one graph, compared after three updates (float64).
  announce_targets();
  const Tensor table0 = normal({11, 8}, 101), w0 = normal({5, 8}, 102), b0 = normal({5}, 103);
  const Tensor ln_w0 = normal({8}, 104), tokens = class_targets({3, 4}, 11, 105),
               labels = class_targets({3, 4}, 5, 106);
  auto train = [&](Device dev) {
    auto param = [&](const Tensor& v) { return v.detach().to(dev).detach().clone().requires_grad_(true); };
    Tensor table = param(table0), w = param(w0), b = param(b0), ln_w = param(ln_w0);
    optim::AdamW opt({table, w, b, ln_w}, {.lr = 0.05});
    Generator gen(5);
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      Tensor h = layer_norm(embedding(table, tokens.to(dev)), {8}, ln_w);  // (3, 4, 8)
      Tensor logits = dropout(linear(h, w, b), 0.2, true, &gen);           // (3, 4, 5)
      cross_entropy(logits, labels.to(dev), {.label_smoothing = 0.1, .class_dim = -1}).backward();
      opt.step();
    }
    return cat({flatten(table.detach()), flatten(w.detach()), b.detach(), ln_w.detach()}).to(Device::cpu());
  };
  const Tensor ref = train(Device::cpu());
  for_each_device([&](const Target& t) { check_close(ref, train(t.device), "trained parameters on " + t.name); });
}

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

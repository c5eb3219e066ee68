// Autocast: bf16 GEMMs with float32 results and gradients, and the guard's rules.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

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

TEST_CASE("[cuda] autocast with bfloat16 products: bf16 activations in and out, float32 weight gradients") {
  // The same network under both products: y = linear(x, w1) (no bias: bit-comparable), h = gelu(y),
  // z = linear(h, w2, b). With bfloat16 products y is the float32 product rounded, h stays
  // bfloat16 into the second GEMM, and every gradient agrees with the float32-products run up to
  // bfloat16 rounding; weights' gradients stay float32, a bfloat16 input's is bfloat16.
  announce_targets();
  const Tensor x = normal({4, 3, 33}, 41, DType::Float32), w1 = normal({20, 33}, 42, DType::Float32);
  const Tensor w2 = normal({7, 20}, 43, DType::Float32), b = normal({7}, 44, DType::Float32);
  const Tensor g = normal({4, 3, 7}, 45, DType::Float32);
  for_each_device([&](const Target& t) {
    INFO(t.name);
    set_autocast_cpu_for_tests(t.emulate);
    auto leaf = [&](const Tensor& v) { return v.detach().to(t.device).detach().requires_grad_(true); };
    struct Out {
      Tensor y, z, gx, gw1, gw2, gb;
    };
    auto run = [&](AutocastProducts products, DType input_dtype) {
      Tensor xd = leaf(x.to(input_dtype)), w1d = leaf(w1), w2d = leaf(w2), bd = leaf(b);
      Tensor y, z;
      {
        AutocastGuard guard(DType::BFloat16, products);
        CHECK(autocast_products() == products);
        y = linear(xd, w1d);
        z = linear(gelu(y), w2d, bd);
      }
      z.backward(g.to(t.device).to(z.dtype()));
      auto host = [](const Tensor& v) { return v.detach().to(Device::cpu()); };
      return Out{host(y), host(z), host(xd.grad()), host(w1d.grad()), host(w2d.grad()), host(bd.grad())};
    };
    const Out ref = run(AutocastProducts::Float32, DType::Float32);
    const Out act = run(AutocastProducts::BFloat16, DType::Float32);
    const Out act16 = run(AutocastProducts::BFloat16, DType::BFloat16);
    set_autocast_cpu_for_tests(false);
    CHECK(act.y.dtype() == DType::BFloat16);
    CHECK(same_values(ref.y.to(DType::BFloat16), act.y));
    CHECK(act.z.dtype() == DType::BFloat16);
    CHECK(act.gx.dtype() == DType::Float32);
    CHECK(act16.gx.dtype() == DType::BFloat16);
    for (const Tensor& gw : {act.gw1, act.gw2, act.gb, act16.gw1}) CHECK(gw.dtype() == DType::Float32);
    auto f64 = [](const Tensor& v) { return v.to(DType::Float64); };
    check_close(f64(ref.z), f64(act.z), "z", 1e-4);
    check_close(f64(ref.gx), f64(act.gx), "dx", 1e-4);
    check_close(f64(ref.gx), f64(act16.gx), "dx of a bfloat16 input", 1e-4);
    check_close(f64(ref.gw1), f64(act.gw1), "dw1", 1e-4);
    check_close(f64(ref.gw2), f64(act.gw2), "dw2", 1e-4);
    check_close(f64(ref.gb), f64(act.gb), "db", 1e-4);
  });
}

TEST_CASE("[cuda] autocast: precision names, nested products and autocast_widen") {
  CHECK_FALSE(autocast_for_precision("fp32", "test").has_value());
  CHECK(autocast_for_precision("bf16", "test") == AutocastProducts::Float32);
  CHECK(autocast_for_precision("bf16-activations", "test") == AutocastProducts::BFloat16);
  CHECK(throws_with([] { autocast_for_precision("fp16", "Trainer"); }, {"[Trainer]", "fp16", "bf16-activations"}));
  const Tensor h = normal({3}, 46, DType::Float32).to(DType::BFloat16).requires_grad_(true);
  CHECK(autocast_widen(h).dtype() == DType::BFloat16);  // no autocast: unchanged
  CHECK(autocast_products() == AutocastProducts::Float32);
  {
    AutocastGuard outer(DType::BFloat16, AutocastProducts::BFloat16);
    {
      AutocastGuard inner(DType::BFloat16);
      CHECK(autocast_products() == AutocastProducts::Float32);
    }
    CHECK(autocast_products() == AutocastProducts::BFloat16);
    Tensor w = autocast_widen(h);
    CHECK(w.dtype() == DType::Float32);
    sum(w).backward();
  }
  CHECK(autocast_products() == AutocastProducts::Float32);
  CHECK(h.grad().dtype() == DType::BFloat16);
  CHECK(same_values(ones({3}, {.dtype = DType::BFloat16}), h.grad()));
}

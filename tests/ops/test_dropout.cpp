// dropout and dropout_add.
#include "harmonic/core/philox.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;
using Inputs = std::vector<Tensor>;

namespace {

constexpr auto f64 = DType::Float64;

}  // namespace

TEST_CASE("dropout: philox mask, scale, backward reuses the mask, p edge cases") {
  Tensor x = add(rand({1000}, {.dtype = f64}), 1.0);
  Generator gen(42);
  const uint64_t offset = Generator(42).reserve(1000);  // the offset the first draw of gen gets
  Tensor y = dropout(x, 0.3, true, &gen);
  std::vector<double> xv = x.to_vector(), yv = y.to_vector();
  int kept = 0;
  bool mask_ok = true;
  for (size_t i = 0; i < xv.size(); ++i) {
    const bool keep = philox::uniform<float>(42, offset, i) >= 0.3f;  // the documented mask definition
    kept += keep;
    if (std::fabs(yv[i] - (keep ? xv[i] / 0.7 : 0.0)) > 1e-12) mask_ok = false;
  }
  CHECK(mask_ok);
  CHECK(std::abs(kept - 700) < 60);
  CHECK(gen.offset() > 0);  // the generator advanced
  // Backward applies the same mask and scale.
  Tensor xl = x.clone().requires_grad_(true);
  Generator g2(42);
  Tensor y2 = dropout(xl, 0.3, true, &g2);
  CHECK(allclose(y2, y, 0, 0));
  y2.backward(ones({1000}, {.dtype = f64}));
  CHECK(allclose(mul(xl.grad(), x), y, 1e-12, 1e-12));
  CHECK(gradcheck(
      [](const Inputs& in) {
        Generator g(7);  // a fixed generator: every evaluation draws the same mask
        return dropout(in[0], 0.4, true, &g);
      },
      {leaf64({3, 4}, 1)}));
  // Float32 masks equal float64 masks (both draw float uniforms).
  Generator g3(42);
  Tensor y32 = dropout(x.to(DType::Float32), 0.3, true, &g3);
  CHECK(allclose(eq(y32, 0.0), eq(y, 0.0)));
  CHECK(dropout(x, 0.0, true, &gen).same(x));
  CHECK(dropout(x, 0.5, false, &gen).same(x));
  CHECK(allclose(dropout(x, 1.0, true, &gen), zeros({1000}, {.dtype = f64})));
  CHECK(throws_with([&] { dropout(x, 1.5); }, {"[dropout]", "1.5"}));
  CHECK(throws_with([&] { dropout(x, -0.1); }, {"[dropout]", "-0.1"}));
}

TEST_CASE("dropout_add: bit for bit add(x, dropout(r)), forward and backward, gradcheck, errors") {
  // float32, 1000 elements (several mask chunks and a tail): the fused kernel rounds the kept
  // r * scale before the add, as the two kernels do, so outputs and gradients are identical.
  const DType f32 = DType::Float32;
  Tensor x0 = hm::test::normal({10, 100}, 31, f32), r0 = hm::test::normal({10, 100}, 32, f32);
  Tensor u = hm::test::normal({10, 100}, 33, f32);
  for (double p : {0.3, 0.0, 1.0}) {
    for (bool training : {true, false}) {
      CAPTURE(p);
      CAPTURE(training);
      Tensor xf = x0.clone().requires_grad_(true), rf = r0.clone().requires_grad_(true);
      Tensor xc = x0.clone().requires_grad_(true), rc = r0.clone().requires_grad_(true);
      Generator gf(5), gc(5);
      Tensor f = dropout_add(xf, rf, p, training, &gf), c = detail::dropout_add_composed(xc, rc, p, training, &gc);
      CHECK(hm::test::same_values(c.detach(), f.detach()));
      CHECK(gf.offset() == gc.offset());  // the same draws: later masks stay the same too
      sum(mul(f, u)).backward();
      sum(mul(c, u)).backward();
      CHECK(hm::test::same_values(xc.grad(), xf.grad()));
      CHECK(hm::test::same_values(rc.grad(), rf.grad()));
    }
  }
  CHECK(gradcheck(
      [](const Inputs& in) {
        Generator g(7);
        return dropout_add(in[0], in[1], 0.4, true, &g);
      },
      {leaf64({3, 4}, 1), leaf64({3, 4}, 2)}));
  Tensor a = zeros({2, 3});
  CHECK(throws_with([&] { dropout_add(a, zeros({3, 2}), 0.5); }, {"[dropout_add]", "(2, 3)", "(3, 2)"}));
  CHECK(throws_with([&] { dropout_add(a, zeros({2, 3}, {.dtype = f64}), 0.5); }, {"[dropout_add]", "float64"}));
  CHECK(throws_with([&] { dropout_add(a, a, 1.5); }, {"[dropout_add]", "1.5"}));
  CHECK(throws_with([&] { dropout_add(a, zeros({2, 3}, {.dtype = DType::Int64}), 0.5); }, {"[dropout_add]", "int64"}));
}

TEST_CASE("[cuda] dropout_add matches the CPU and equals the composition on every target") {
  hm::test::announce_targets();
  auto fused = [](auto& in) {
    Generator g(11);
    return dropout_add(in[0], in[1], 0.3, true, &g);
  };
  hm::test::check_against_cpu("dropout_add", fused, {hm::test::normal({7, 50}, 41), hm::test::normal({7, 50}, 42)});
  Tensor x = hm::test::normal({7, 50}, 43, DType::Float32), r = hm::test::normal({7, 50}, 44, DType::Float32);
  hm::test::for_each_device([&](const hm::test::Target& t) {
    CAPTURE(t.name);
    Generator g1(3), g2(3);
    Tensor f = dropout_add(x.to(t.device), r.to(t.device), 0.3, true, &g1);
    Tensor c = detail::dropout_add_composed(x.to(t.device), r.to(t.device), 0.3, true, &g2);
    CHECK(hm::test::same_values(c.to(Device::cpu()), f.to(Device::cpu())));
  });
}

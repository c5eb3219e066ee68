// dropout.
#include "harmonic/core/philox.h"
#include "tests/helpers.h"

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

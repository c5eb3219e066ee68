// mse_loss.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

// Reference: a = L(-1, 2, 2, 3), b = L(0.5, -0.5, 2, 3) with L = torch.linspace(...).reshape;
// F.mse_loss(a, b) and reduction='sum'
TEST_CASE("mse_loss: values, gradcheck, shape errors") {
  Tensor a = lin(-1, 2, {2, 3}), b = lin(0.5, -0.5, {2, 3});
  CHECK(allclose(mse_loss(a, b), {2.1166667}));
  CHECK(allclose(mse_loss(a, b, Reduction::Sum), {12.7}));
  CHECK(allclose(mse_loss(a, b, Reduction::None), mul(sub(a, b), sub(a, b))));
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    CHECK(gradcheck([r](const Inputs& in) { return mse_loss(in[0], in[1], r); }, {leaf64({2, 3}, 1), leaf64({2, 3}, 2)}));
  CHECK(throws_with([] { mse_loss(zeros({2, 3}), zeros({3})); }, {"[mse_loss]", "(2, 3)", "(3,)"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] mse_loss matches the CPU") {
  announce_targets();
  Tensor a = normal({4, 7}, 61), b = normal({4, 7}, 62);
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    check_against_cpu("mse_loss", [&](auto& in) { return mse_loss(in[0], in[1], r); }, {a, b});
  check_against_cpu(
      "mse_loss large", [&](auto& in) { return mse_loss(in[0], in[1]); },
      {normal({70000}, 63, DType::Float32), normal({70000}, 64, DType::Float32)}, 1e-10);
}

}  // namespace cuda_cases

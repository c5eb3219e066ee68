// softmax and log_softmax.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/matmul_kernels.h"
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

// Reference: lg3 = torch.sin(torch.arange(24, dtype=torch.float64) * 0.9).reshape(2, 3, 4) * 1.5;
// torch.softmax(lg3, -1), torch.softmax(lg3, 1), torch.log_softmax(lg3, 0), torch.log_softmax(lg3, 1)
TEST_CASE("softmax / log_softmax: values vs PyTorch over every dim") {
  Tensor x = wave({2, 3, 4}, 0.9, 1.5);
  CHECK(allclose(softmax(x, -1), {0.095731292, 0.30998862, 0.41253319, 0.1817469,  0.24695784,  0.11068664,
                                  0.15048322,  0.49187231, 0.33114198, 0.43133288, 0.18683449,  0.050690655,
                                  0.046485668, 0.064558579, 0.21293415, 0.6760216, 0.62683377, 0.2670152,
                                  0.0724982,   0.033652832, 0.035940616, 0.11957968, 0.37572576, 0.46875394}));
  CHECK(allclose(softmax(x, 1), {0.20817581, 0.41767719, 0.6651585,  0.55390772,  0.10718993, 0.029767682,
                                 0.048429406, 0.29921103, 0.68463426, 0.55255513, 0.28641209, 0.14688125,
                                 0.04773008,  0.099315406, 0.21320414, 0.4283238, 0.88488069, 0.56475214,
                                 0.099801437, 0.029315175, 0.067389235, 0.33593246, 0.68699442, 0.54236103}));
  CHECK(allclose(log_softmax(x, 0), {-0.2066912, -0.093921674, -0.21838107, -1.0147799, -2.2264558,  -2.1812092,
                                     -0.94356269, -0.20117291, -0.094009842, -0.22456632, -1.0389948, -2.2405321,
                                     -1.6780955, -2.4118874,  -1.6287179,  -0.45017308, -0.11418849, -0.11980312,
                                     -0.49304894, -1.7024913, -2.4109925,  -1.603767,   -0.43666193, -0.11249913}));
  CHECK(allclose(log_softmax(x, 1), {-1.5693723, -0.87304642, -0.40772991, -0.59075718, -2.233153,  -3.514332,
                                     -3.0276481, -1.2066062,  -0.37887051, -0.59320207, -1.2503236, -1.9181308,
                                     -3.0421935, -2.3094546,  -1.5455051,  -0.84787584, -0.12230246, -0.57136834,
                                     -2.3045727, -3.52965,    -2.69727,    -1.0908452,  -0.37542911, -0.61182339}));
  // float32 (vectorised exp) agrees with float64; a -inf entry gets exactly 0.
  Generator gen(1);
  Tensor big = mul(randn({7, 300}, {.dtype = f64}, &gen), 5.0);
  CHECK(allclose(softmax(big.to(DType::Float32), 1), softmax(big, 1), 1e-5, 1e-7));
  CHECK(allclose(log_softmax(big.to(DType::Float32), 0), log_softmax(big, 0), 1e-5, 1e-5));
  Tensor masked = tensor({0.0, -INFINITY, 1.0});
  CHECK(softmax(masked).to_vector()[1] == 0.0);
  CHECK(allclose(softmax(masked), {0.26894142, 0.0, 0.73105858}));
}

TEST_CASE("softmax / log_softmax: gradcheck over dims and non-contiguous input") {
  for (int64_t dim : {0, 1, 2, -1}) {
    CAPTURE(dim);
    CHECK(gradcheck([dim](const Inputs& in) { return softmax(in[0], dim); }, {leaf64({2, 3, 4}, 1)}));
    CHECK(gradcheck([dim](const Inputs& in) { return log_softmax(in[0], dim); }, {leaf64({2, 3, 4}, 2)}));
  }
  CHECK(gradcheck([](const Inputs& in) { return softmax(transpose(in[0], 0, 1), -1); }, {leaf64({5, 3}, 3)}));
  CHECK(gradcheck([](const Inputs& in) { return log_softmax(transpose(in[0], 0, 1), 0); }, {leaf64({5, 3}, 4)}));
  CHECK(throws_with([] { softmax(zeros({2, 3}), 2); }, {"[softmax]", "2"}));
  CHECK(throws_with([] { log_softmax(zeros({2}, {.dtype = DType::Int64})); }, {"[log_softmax]", "int64"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

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

}  // namespace cuda_cases

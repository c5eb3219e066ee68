// var and std.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <algorithm>
#include <limits>

#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("reduce: var / std values") {
  Tensor x = X();
  CHECK(allclose(var(x, {2}), {4.9166666667, 36.6666666667, 4.25, 8.0, 20.9166666667, 3.6666666667}));  // X.var(2)
  CHECK(allclose(var(x, {0, 1}), {22.6666666667, 20.9666666667, 6.6666666667, 5.8666666667}));          // X.var((0,1))
  CHECK(allclose(var(x, {}, 0), {12.8732638889}));  // torch.var(X, (0,1,2), unbiased=False)
  CHECK(allclose(hm::std(x, {1}), {5.2915026221, 5.0332229568, 1.5275252317, 3.6055512755, 3.5118845843, 5.0,
                                   1.5275252317, 0.5773502692}));  // X.std(1)
  CHECK(allclose(hm::std(x, {0, 2}, 0),
                 {3.4255474015, 4.6485884954, 1.7633419975}));  // torch.std(X, (0,2), unbiased=False)
  CHECK(hm::std(x, {0, 2}, 0, true).shape() == Shape{1, 3, 1});
  // A large offset does not destroy the variance (two-pass, not E[x^2] - E[x]^2).
  // float64 around 1e9 (x^2 ~ 1e18 would leave nothing of the 5/3), float32 around 1e7.
  Tensor big = add(tensor({1, 2, 3, 4}, {}, {.dtype = DType::Float64}), 1e9);
  CHECK(allclose(var(big), {5.0 / 3.0}, 1e-12));
  CHECK(allclose(var(add(tensor({1.0, 2.0, 3.0, 4.0}), 1e7)), {5.0 / 3.0}, 1e-6));
  // One sample with correction 1: 0/0 = NaN, like PyTorch.
  CHECK(std::isnan(var(tensor({2.0})).item<double>()));
}

TEST_CASE("reduce: gradcheck var, std, logsumexp") {
  for (bool keepdim : {false, true}) {
    for (Dims dims : {Dims{}, Dims{1}, Dims{0, 2}, Dims{2}}) {
      for (int64_t correction : {0, 1}) {
        gradcheck_both_layouts([&](const Tensor& x) { return var(x, dims, correction, keepdim); });
        gradcheck_both_layouts([&](const Tensor& x) { return hm::std(x, dims, correction, keepdim); });
      }
      gradcheck_both_layouts([&](const Tensor& x) { return logsumexp(x, dims, keepdim); });
    }
  }
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] var and std match the CPU") {
  announce_targets();
  const Tensor x = values({4, 5, 6});
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {0, 2}};
  for (const auto& dims : dim_sets)
    for (int64_t correction : {0, 1}) {
      check_against_cpu("var", [&](auto& in) { return var(in[0], dims, correction); }, {x});
      check_against_cpu("std keepdim", [&](auto& in) { return hm::std(in[0], dims, correction, true); }, {x});
    }
  // float32 with a large mean (accumulated in double like the CPU), long rows, few columns.
  check_against_cpu(
      "var float32 offset", [](auto& in) { return var(add(in[0], 1e4), {1}); }, {values({3, 2000}, DType::Float32)},
      1e-6);
  check_against_cpu("std long rows", [](auto& in) { return hm::std(in[0], {1}); }, {values({2, 10000})});
  check_against_cpu("std few columns", [](auto& in) { return hm::std(in[0], {0}); }, {values({1000, 3})});
  // Few outputs over a long r: both passes split over the grid.
  check_against_cpu("var split", [](auto& in) { return var(in[0]); }, {values({40000})});
  check_against_cpu("std split columns", [](auto& in) { return hm::std(in[0], {0}); },
                    {values({5000, 3}, DType::Float32)}, 1e-6);
  check_against_cpu("std permuted", [](auto& in) { return hm::std(transposed(in[0]), {0}); }, {values({6, 7})});
  // Constant slices: std = 0 has a zero (not NaN) gradient; r <= correction gives inf/NaN.
  check_against_cpu("std constant", [](auto& in) { return hm::std(in[0], {1}); }, {ones({3, 4})});
  check_against_cpu("var r = 1", [](auto& in) { return var(in[0], {1}); }, {values({3, 1})});
}

}  // namespace cuda_cases

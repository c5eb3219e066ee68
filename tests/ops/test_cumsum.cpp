// cumsum.
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

TEST_CASE("reduce: cumsum values and dtypes") {
  Tensor x = X();
  CHECK(allclose(cumsum(x, 1), {3, -1, 4, 1, -2, 8, 6, 7, 3, 11, 11, 15, 9, 7, 9, 3, 11, 4, 17, 7, 17, 6, 23, 11}));
  CHECK(allclose(cumsum(x, -1), {3, 2, 6, 7, -5, 4, 6, 12, 5, 8, 13, 21, 9, 16, 25, 28, 2, -1, 7, 11, 6, 8, 14, 18}));
  CHECK(ints(cumsum(x.to(DType::Int64), 0)) ==
        std::vector<int64_t>{3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, 8, 12, 6, 13, 4, -3, 6, 10, 10, 11, 5, 11, 12});
  Tensor b = tensor({1, 0, 1, 1}).to(DType::Bool);  // bool counts into int64, like torch.cumsum
  CHECK(cumsum(b, 0).dtype() == DType::Int64);
  CHECK(ints(cumsum(b, 0)) == std::vector<int64_t>{1, 1, 2, 3});
  CHECK(cumsum(scalar_tensor(2.0), 0).item<double>() == 2);
}

TEST_CASE("reduce: gradcheck norm and cumsum") {
  for (bool keepdim : {false, true})
    for (Dims dims : {Dims{}, Dims{1}, Dims{0, 2}})
      for (double p : {2.0, 1.0, 3.0, 0.5, kInf, -kInf})
        gradcheck_both_layouts([&](const Tensor& x) { return norm(x, p, dims, keepdim); });
  for (int64_t d : {0, 1, 2, -1}) gradcheck_both_layouts([&](const Tensor& x) { return cumsum(x, d); });
  // The gradient of a 0-norm is 0.
  Tensor x = leaf64({3, 2});
  norm(x, 0).backward();
  CHECK(allclose(x.grad(), std::vector<double>(6, 0.0)));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] cumsum matches the CPU") {
  announce_targets();
  const Tensor x = values({3, 4, 5});
  for (int64_t d : {0, 1, 2, -1}) check_against_cpu("cumsum", [&](auto& in) { return cumsum(in[0], d); }, {x});
  check_against_cpu("cumsum permuted", [](auto& in) { return cumsum(transposed(in[0]), 1); }, {values({6, 5})});
  // Long rows take the block scan over several tiles (its gradient scans in reverse).
  check_against_cpu("cumsum long rows", [](auto& in) { return cumsum(in[0], 1); }, {values({3, 1000})});
  check_against_cpu(
      "cumsum long rows float32", [](auto& in) { return cumsum(in[0], 0); }, {values({700}, DType::Float32)}, 1e-6);
  check_against_cpu(
      "cumsum int64", [](auto& in) { return cumsum(in[0], 1); }, {values({2, 600}, DType::Int64)}, 0);
  check_against_cpu(
      "cumsum bool", [](auto& in) { return cumsum(in[0], 0); }, {values({300, 2}, DType::Bool)}, 0);
  check_against_cpu("cumsum 0-d", [](auto& in) { return cumsum(in[0], 0); }, {values({})});
  check_against_cpu("cumsum empty", [](auto& in) { return cumsum(in[0], 1); }, {zeros({0, 4})});
}

}  // namespace cuda_cases

// logsumexp and p-norms.
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

TEST_CASE("reduce: logsumexp values and stability") {
  Tensor x = X();
  CHECK(allclose(logsumexp(x, {1}), {5.1269679984, 9.0025209718, 5.3490122168, 8.1277308716, 9.0494556097, 7.0067604435,
                                     9.3490122168, 4.8619948041}));                  // X.logsumexp(1)
  CHECK(allclose(logsumexp(x, {0, 2}), {9.7642632086, 9.3550382426, 8.334883147}));  // X.logsumexp((0,2))
  CHECK(allclose(logsumexp(tensor({1000.0, 1000.0}), {0}), {1000.6931471806}, 1e-6));    // 1000 + log 2, no overflow
  CHECK(logsumexp(tensor({-kInf, -kInf}), {0}).item<double>() == -kInf);
  CHECK(logsumexp(tensor({1, kInf}), {0}).item<double>() == kInf);
  CHECK(logsumexp(x, {2}, true).shape() == Shape{2, 3, 1});
}

TEST_CASE("reduce: norm values for p = 2, 1, inf, -inf, 0, 3, 0.5") {
  Tensor x = X();  // torch.linalg.vector_norm(X, p, dims)
  CHECK(allclose(norm(x), {26.4764045897}));
  CHECK(allclose(norm(x, 1, {2}), {9, 22, 21, 28, 17, 18}));
  CHECK(allclose(norm(x, kInf, {1}), {5, 9, 5, 8, 9, 7, 9, 4}));
  CHECK(allclose(norm(x, -kInf, {2}), {1, 2, 3, 3, 2, 2}));
  CHECK(allclose(norm(x, 0), {24}));
  CHECK(allclose(norm(x, 3, {0, 2}), {12.4310874497, 11.909034403, 10.8943044621}));
  CHECK(allclose(norm(x, 0.5, {2}),
                 {32.8564064606, 82.8058373967, 81.5881136373, 107.6987768135, 63.5957044355, 69.1091786523}));
  CHECK(norm(x, 2, {1}, true).shape() == Shape{2, 1, 4});
  CHECK(allclose(norm(x.to(DType::Float32), 2), {26.4764045897}));
}

TEST_CASE("reduce: the inf-norm gradient of a row holding NaN is 0, as in PyTorch 1.13") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // x = torch.tensor([[1., nan, -3.], [1., -4., 2.], [nan, nan, 1.]], dtype=torch.float64, requires_grad=True)
  // torch.linalg.vector_norm(x, ord=inf, dim=1)  -> [nan, 4., nan]
  //   .backward(torch.ones(3)); x.grad          -> [[0, 0, -0], [0, -1, 0], [0, 0, 0]]
  // ord=-inf: norm [nan, 1., nan], x.grad       -> [[0, 0, -0], [1, -0, 0], [0, 0, 0]]
  for (double p : {kInf, -kInf}) {
    CAPTURE(p);
    Tensor x = tensor({1, nan, -3, 1, -4, 2, nan, nan, 1}, {3, 3}, {.dtype = DType::Float64, .requires_grad = true});
    Tensor n = norm(x, p, {1});
    std::vector<double> nv = n.to_vector();
    CHECK(std::isnan(nv[0]));
    CHECK(nv[1] == (p > 0 ? 4 : 1));
    CHECK(std::isnan(nv[2]));
    sum(n).backward();
    std::vector<double> want =
        p > 0 ? std::vector<double>{0, 0, 0, 0, -1, 0, 0, 0, 0} : std::vector<double>{0, 0, 0, 1, 0, 0, 0, 0, 0};
    CHECK(x.grad().to_vector() == want);
  }
  // An inf entry is the norm and takes the gradient: vector_norm([[1., inf, -3.]], inf, 1) -> grad [[0, 1, -0]]
  Tensor y = tensor({1, kInf, -3}, {1, 3}, {.dtype = DType::Float64, .requires_grad = true});
  sum(norm(y, kInf, {1})).backward();
  CHECK(y.grad().to_vector() == std::vector<double>{0, 1, 0});
  // amax differs in PyTorch: torch.amax(torch.tensor([[1., nan, -3.]]), 1) backward -> [[nan, nan, nan]]
  Tensor a = tensor({1, nan, -3}, {1, 3}, {.dtype = DType::Float64, .requires_grad = true});
  sum(amax(a, {1})).backward();
  for (double v : a.grad().to_vector()) CHECK(std::isnan(v));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] logsumexp and norm match the CPU") {
  announce_targets();
  for (DType dt : {DType::Float64, DType::Float32}) {
    const Tensor x = values({4, 5, 6}, dt);
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}})
      check_against_cpu("logsumexp", [&](auto& in) { return logsumexp(in[0], dims); }, {x});
    for (double p : {2.0, 1.0, 3.0, 0.5, double(INFINITY), -double(INFINITY)})
      for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}})
        check_against_cpu("norm p=" + std::to_string(p), [&](auto& in) { return norm(in[0], p, dims); }, {x});
    check_against_cpu("norm p=0", [](auto& in) { return norm(in[0], 0.0, {1}); }, {ties({5, 7}, dt)});
  }
  // Huge values (shifted by the max), -inf slices, +inf, NaN; long rows and few columns.
  const double inf = INFINITY;
  Tensor edge = from_vector(std::vector<double>{1000, 999, -inf, -inf, -inf, -inf, inf, 1, 2, NAN, 3, 4}, {4, 3});
  check_against_cpu("logsumexp edges", [](auto& in) { return logsumexp(in[0], {1}); }, {edge});
  check_against_cpu("logsumexp split", [](auto& in) { return logsumexp(in[0], {0}); }, {values({30000})});
  check_against_cpu("logsumexp split columns", [](auto& in) { return logsumexp(in[0], {0}); },
                    {values({6000, 2}, DType::Float32)}, 1e-6);
  check_against_cpu("logsumexp long rows", [](auto& in) { return logsumexp(in[0], {1}); }, {values({2, 7000})});
  check_against_cpu("logsumexp few columns", [](auto& in) { return logsumexp(in[0], {0}); }, {values({900, 2})});
  check_against_cpu(
      "norm long rows", [](auto& in) { return norm(in[0], 2.0, {1}); }, {values({2, 6000}, DType::Float32)}, 1e-6);
  for (double p : {2.0, 3.0, double(INFINITY)})
    check_against_cpu(
        "norm split p=" + std::to_string(p), [p](auto& in) { return norm(in[0], p); },
        {values({50000}, DType::Float32)}, 1e-6);
  check_against_cpu("norm inf ties", [](auto& in) { return norm(in[0], INFINITY, {0}); }, {ties({50, 4})});
  check_against_cpu("norm zeros", [](auto& in) { return norm(in[0], 2.0, {1}); }, {zeros({2, 3})});
  check_against_cpu("norm NaN", [](auto& in) { return norm(in[0], INFINITY, {1}); },
                    {from_vector(std::vector<double>{1, NAN, -3, 2, -5, 0}, {2, 3})});
}

}  // namespace cuda_cases

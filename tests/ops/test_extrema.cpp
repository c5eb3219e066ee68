// amax/amin, max/min, argmax/argmin: values, ties and their gradients.
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

TEST_CASE("reduce: amax / amin values over dim sets") {
  Tensor x = X();
  CHECK(amax(x).item<double>() == 9);  // X.amax()
  CHECK(amax(x).shape() == Shape{});
  CHECK(allclose(amax(x, {1}), {5, 9, 5, 8, 9, 7, 9, 4}));                 // X.amax(1)
  CHECK(allclose(amax(x, {0, 2}), {9, 9, 8}));                             // X.amax((0,2))
  CHECK(allclose(amin(x, {0}), {3, -1, 4, 1, -5, -3, 2, 4, 5, 2, 5, 4}));  // X.amin(0)
  CHECK(amax(x, {-1}, true).shape() == Shape{2, 3, 1});
  CHECK(amax(x, {0, 2}, true).shape() == Shape{1, 3, 1});
  // int64 and float32 keep their dtype.
  Tensor xi = x.to(DType::Int64);
  CHECK(amin(xi, {2}).dtype() == DType::Int64);
  CHECK(ints(amin(xi, {2})) == std::vector<int64_t>{-1, -5, 3, 3, -3, 2});
  CHECK(allclose(amax(x.to(DType::Float32), {1}), {5, 9, 5, 8, 9, 7, 9, 4}));
  // NaN propagates, argmax points at it: torch.tensor([1., nan, 3]).amax() / .argmax(0)
  Tensor n = tensor({1, kNaN, 3});
  CHECK(std::isnan(amax(n).item<double>()));
  CHECK(std::isnan(amin(n).item<double>()));
  CHECK(argmax(n, 0).item<int64_t>() == 1);
}

TEST_CASE("reduce: a row of -inf keeps -inf as its max (any compiler, any row length)") {
  // `omp simd reduction(max:)` starts its lanes at -FLT_MAX, so with clang an
  // all -inf row gave -FLT_MAX; ops/cpu/lane_extremum.h starts them at the identity.
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (int64_t n : {1, 15, 16, 17, 40}) {
    for (DType dt : {DType::Float32, DType::Float64}) {
      Tensor row = full({1, n}, -inf).to(dt);
      CHECK(amax(row, {1}).to(DType::Float64).item<double>() == -inf);
      CHECK(amin(full({1, n}, inf).to(dt), {1}).item<double>() == inf);
      CHECK(logsumexp(row, {1}).to(DType::Float64).item<double>() == -inf);
      CHECK(norm(row, -inf, {1}).item<double>() == inf);  // min |x| of a row of -inf
    }
  }
}

TEST_CASE("reduce: max / min / argmax / argmin with indices") {
  Tensor x = X();
  ValuesIndices m = max(x, 1);  // X.max(1)
  CHECK(allclose(m.values, {5, 9, 5, 8, 9, 7, 9, 4}));
  CHECK(m.indices.dtype() == DType::Int64);
  CHECK(ints(m.indices) == std::vector<int64_t>{2, 1, 2, 2, 0, 0, 0, 1});
  ValuesIndices mn = min(x, 2, true);  // X.min(2, keepdim=True)
  CHECK(mn.values.shape() == Shape{2, 3, 1});
  CHECK(allclose(mn.values, {-1, -5, 3, 3, -3, 2}));
  CHECK(ints(mn.indices) == std::vector<int64_t>{1, 0, 1, 3, 1, 1});
  CHECK(ints(argmax(x, -1)) == std::vector<int64_t>{2, 1, 3, 0, 2, 0});  // X.argmax(-1); [9,7,9,3] -> first 9
  CHECK(ints(argmin(x, 0)) == std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1});  // X.argmin(0)
  CHECK(argmax(x, 1, true).shape() == Shape{2, 1, 4});
  // First index on ties, in both the row and the column kernel.
  Tensor t = tensor({2.0, 5.0, 5.0, 1.0, 5.0});
  CHECK(argmax(t, 0).item<int64_t>() == 1);
  CHECK(ints(argmax(reshape(t, {5, 1}), 0)) == std::vector<int64_t>{1});
  Tensor tc = from_vector(std::vector<double>{2, 7, 5, 7, 5, 1}, {3, 2});  // columns (2,5,5) and (7,7,1)
  CHECK(ints(argmax(tc, 0)) == std::vector<int64_t>{1, 0});
  CHECK(ints(argmin(tc, 0)) == std::vector<int64_t>{0, 2});
  // 0-d input.
  CHECK(max(scalar_tensor(4.0), 0).values.item<double>() == 4);
  CHECK(argmax(scalar_tensor(4.0), -1).item<int64_t>() == 0);
}

TEST_CASE("reduce: gradients of ties and edge cases match PyTorch") {
  // a = torch.tensor([1., 3, 3, 2], requires_grad=True); a.amax().backward() -> [0, .5, .5, 0]
  Tensor a = tensor({1, 3, 3, 2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  amax(a).backward();
  CHECK(allclose(a.grad(), {0, 0.5, 0.5, 0}));
  a.zero_grad();
  amin(mul(a, -1.0)).backward();
  CHECK(allclose(a.grad(), {0, -0.5, -0.5, 0}));
  // max(dim) sends the whole gradient to the first index: a.max(1).values -> [0, 1, 0, 0]
  Tensor b = tensor({1, 3, 3, 2}, {1, 4}, {.dtype = DType::Float64, .requires_grad = true});
  sum(max(b, 1).values).backward();
  CHECK(allclose(b.grad(), {0, 1, 0, 0}));
  // vector_norm(tensor([-3., 1, 3, 2]), inf) -> grad [-.5, 0, .5, 0]
  Tensor c = tensor({-3, 1, 3, 2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  norm(c, kInf).backward();
  CHECK(allclose(c.grad(), {-0.5, 0, 0.5, 0}));
  // The 2-norm at 0 has gradient 0, not NaN; so do std of a constant and the inf-norm of 0.
  Tensor z = zeros({3}, {.dtype = DType::Float64, .requires_grad = true});
  norm(z).backward();
  CHECK(allclose(z.grad(), {0, 0, 0}));
  z.zero_grad();
  norm(z, kInf).backward();
  CHECK(allclose(z.grad(), {0, 0, 0}));
  z.zero_grad();
  norm(z, 3).backward();
  CHECK(allclose(z.grad(), {0, 0, 0}));
  Tensor k = full({3}, 2.0, {.dtype = DType::Float64, .requires_grad = true});
  hm::std(k).backward();
  CHECK(allclose(k.grad(), {0, 0, 0}));
  // logsumexp backward is softmax.
  Tensor l = tensor({1, 2, 3}, {}, {.dtype = DType::Float64, .requires_grad = true});
  logsumexp(l, {0}).backward();
  double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), zs = e1 + e2 + e3;
  CHECK(allclose(l.grad(), {e1 / zs, e2 / zs, e3 / zs}, 1e-12, 1e-12));
}

TEST_CASE("reduce: gradcheck amax, amin, max, min") {
  for (bool keepdim : {false, true}) {
    for (Dims dims : {Dims{}, Dims{1}, Dims{0, 2}, Dims{-1}}) {
      gradcheck_both_layouts([&](const Tensor& x) { return amax(x, dims, keepdim); });
      gradcheck_both_layouts([&](const Tensor& x) { return amin(x, dims, keepdim); });
    }
    for (int64_t d : {0, 1, 2}) {
      gradcheck_both_layouts([&](const Tensor& x) { return max(x, d, keepdim).values; });
      gradcheck_both_layouts([&](const Tensor& x) { return min(x, d, keepdim).values; });
    }
  }
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] amax, amin, max, min, argmax, argmin match the CPU") {
  announce_targets();
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}};
  for (DType dt : {DType::Float64, DType::Float32}) {
    const Tensor x = ties({3, 4, 5}, dt);  // many ties: gradients split between them
    for (const auto& dims : dim_sets) {
      check_against_cpu("amax", [&](auto& in) { return amax(in[0], dims); }, {x});
      check_against_cpu("amin keepdim", [&](auto& in) { return amin(in[0], dims, true); }, {x});
    }
    for (int64_t d : {0, 1, 2}) {
      check_against_cpu("max values", [&](auto& in) { return max(in[0], d).values; }, {x});
      check_against_cpu("min values", [&](auto& in) { return min(in[0], d, true).values; }, {x});
      check_against_cpu(
          "max indices", [&](auto& in) { return max(in[0], d).indices; }, {x}, 0);
      check_against_cpu(
          "argmin", [&](auto& in) { return argmin(in[0], d); }, {x}, 0);
    }
  }
  // Long rows (a whole block per output), few columns over a long r, a permuted input.
  check_against_cpu(
      "argmax long rows", [](auto& in) { return argmax(in[0], 1); }, {values({3, 9000})}, 0);
  check_against_cpu("amax long rows", [](auto& in) { return amax(in[0], {1}); }, {ties({2, 5000})});
  check_against_cpu(
      "argmin few columns", [](auto& in) { return argmin(in[0], 0); }, {ties({3000, 3})}, 0);
  check_against_cpu("amin few columns", [](auto& in) { return amin(in[0], {0}); }, {ties({700, 2})});
  check_against_cpu(
      "argmax wide columns", [](auto& in) { return argmax(in[0], 0); }, {ties({9, 300})}, 0);
  // Few outputs over a long r: r is split over the grid (ties across splits: first index).
  check_against_cpu(
      "argmax split", [](auto& in) { return argmax(in[0], 0); }, {ties({20000})}, 0);
  check_against_cpu(
      "argmin split columns", [](auto& in) { return argmin(in[0], 0); }, {ties({5000, 2})}, 0);
  check_against_cpu("amax split", [](auto& in) { return amax(in[0]); }, {ties({30000})});
  check_against_cpu("amin split columns", [](auto& in) { return amin(in[0], {0}); }, {ties({6000, 3})});
  check_against_cpu("amax permuted", [](auto& in) { return amax(transposed(in[0]), {1}); }, {values({6, 5})});
  // int64, NaN (wins, first NaN index), and a scalar.
  check_against_cpu(
      "argmax int64", [](auto& in) { return argmax(in[0], 1); }, {ties({4, 33}, DType::Int64)}, 0);
  check_against_cpu(
      "amin int64", [](auto& in) { return amin(in[0], {0}); }, {ties({40, 3}, DType::Int64)}, 0);
  Tensor nan = from_vector(std::vector<double>{1, NAN, 3, NAN, 5, 2, 2, 0}, {2, 4}, {.dtype = DType::Float32});
  for (int64_t d : {0, 1}) {
    check_against_cpu(
        "argmax NaN", [&](auto& in) { return argmax(in[0], d); }, {nan}, 0);
    check_against_cpu(
        "argmin NaN", [&](auto& in) { return argmin(in[0], d); }, {nan}, 0);
    check_against_cpu("amax NaN", [&](auto& in) { return amax(in[0], {d}); }, {nan});
  }
  check_against_cpu("max 0-d", [](auto& in) { return max(in[0], 0).values; }, {values({})});
  for_each_device([](const Target& t) {
    CHECK(throws_with([&] { amax(zeros({2, 0}, {.device = t.device}), {1}); }, {"[amax]", "empty"}));
  });
}

}  // namespace cuda_cases

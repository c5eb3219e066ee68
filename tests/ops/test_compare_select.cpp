// Comparisons, logical_not, where and masked_fill.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <algorithm>
#include <limits>

#include "harmonic/autograd/node.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("comparisons and logical_not: bool results, broadcasting, scalar forms") {
  Tensor a = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  Tensor b = tensor({2.0, 2.0, 2.0});
  Tensor e = eq(a, b);
  CHECK(e.dtype() == DType::Bool);
  CHECK(e.shape() == Shape{2, 3});
  CHECK(!e.requires_grad());
  CHECK(allclose(e, {0, 1, 0, 0, 0, 0}));
  CHECK(allclose(ne(a, b), {1, 0, 1, 1, 1, 1}));
  CHECK(allclose(lt(a, b), {1, 0, 0, 0, 0, 0}));
  CHECK(allclose(le(a, b), {1, 1, 0, 0, 0, 0}));
  CHECK(allclose(gt(a, b), {0, 0, 1, 1, 1, 1}));
  CHECK(allclose(ge(a, b), {0, 1, 1, 1, 1, 1}));
  CHECK(allclose(eq(a, 4.0), {0, 0, 0, 1, 0, 0}));
  CHECK(allclose(lt(a, 2.5), {1, 1, 0, 0, 0, 0}));
  CHECK(allclose(gt(a, 2.5), {0, 0, 1, 1, 1, 1}));
  Tensor w = leaf64({3}, 1);
  CHECK(!gt(w, 0.0).requires_grad());  // not differentiable, even from a grad-requiring input
  CHECK(allclose(logical_not(gt(a, 2.5)), {1, 1, 0, 0, 0, 0}));
  CHECK(logical_not(e).dtype() == DType::Bool);
  CHECK(allclose(logical_not(tensor({0, 2.5, -1})), {1, 0, 0}));
  CHECK(allclose(eq(tensor({1, 0}).to(DType::Bool), tensor({1, 1}).to(DType::Bool)), {1, 0}));
  CHECK(allclose(eq(doubles({std::nan("")}), doubles({std::nan("")})), {0.0}));  // NaN != NaN
}

TEST_CASE("where and masked_fill: values, broadcasting, gradients") {
  Tensor cond = gt(tensor({1.0, -1.0, 2.0, -2.0, 3.0, -3.0}, {2, 3}), 0.0);  // (2, 3)
  Tensor a = doubles({10, 20}, {2, 1});
  Tensor b = doubles({-1, -2, -3});
  Tensor w = where(cond, a, b);
  CHECK(w.shape() == Shape{2, 3});
  CHECK(allclose(w, {10, -2, 10, -1, 20, -3}));
  CHECK(allclose(where(gt(doubles({1, -1}), 0.0), doubles({5}), doubles({7})), {5, 7}));

  Tensor x = doubles({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mask = gt(doubles({1, 0, 1}), 0.5);  // (3,) broadcast over rows
  CHECK(allclose(masked_fill(x, mask, -9), {-9, 2, -9, -9, 5, -9}));
  CHECK(allclose(masked_fill(x, gt(doubles({1, 0}, {2, 1}), 0.5), 1e9), {1e9, 1e9, 1e9, 4, 5, 6}));

  // Gradients: to a where cond, to b elsewhere, summed over broadcast dims; masked positions get 0.
  Tensor ga = leaf64({2, 1}, 1), gb = leaf64({3}, 2);
  sum(where(cond, ga, gb)).backward();
  CHECK(allclose(ga.grad(), {2, 1}));
  CHECK(allclose(gb.grad(), {1, 1, 1}));
  Tensor gx = leaf64({2, 3}, 3);
  sum(masked_fill(gx, mask, 0.5)).backward();
  CHECK(allclose(gx.grad(), {0, 1, 0, 0, 1, 0}));

  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return where(cond, in[0], in[1]); },
                  {leaf64({2, 1}, 4), leaf64({3}, 5)}));
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return where(cond, transposed_view(in[0]), in[1]); },
                  {leaf64({3, 2}, 6), leaf64({2, 3}, 7)}));
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return masked_fill(in[0], mask, 3.0); }, {leaf64({2, 3}, 8)}));
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return masked_fill(transposed_view(in[0]), mask, 3.0); },
                  {leaf64({3, 2}, 9)}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] where and masked_fill match the CPU") {
  announce_targets();
  const Tensor cond = values({3, 1, 5}, DType::Bool, 21);
  for (DType dt : {DType::Float64, DType::Float32})
    check_against_cpu(std::string("where ") + std::string(dtype_name(dt)),
                      [&](auto& x) { return where(x[0], x[1], x[2]); },
                      {cond, values({4, 5}, dt, 1), values({3, 4, 1}, dt, 2)});
  for (DType dt : {DType::Int64, DType::Bool})
    check_against_cpu(
        std::string("where ") + std::string(dtype_name(dt)), [&](auto& x) { return where(x[0], x[1], x[2]); },
        {cond, values({4, 5}, dt, 1), values({5}, dt, 2)}, 0);
  check_against_cpu("masked_fill", [](auto& x) { return masked_fill(transposed(x[0]), x[1], -7.5); },
                    {values({6, 4}), values({4, 1}, DType::Bool, 3)});
  check_against_cpu("masked_fill -inf", [](auto& x) { return masked_fill(x[0], x[1], -INFINITY); },
                    {values({2, 6}, DType::Float32), values({6}, DType::Bool, 4)});
}

}  // namespace cuda_cases

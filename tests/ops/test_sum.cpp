// sum and mean: layouts, empty dims, errors of the reduction family.
#include <limits>

#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

TEST_CASE("reduce: mean over an empty dimension is NaN, as in PyTorch") {
  // torch.zeros(0, 3).mean(0) -> tensor([nan, nan, nan]); torch.zeros(0).mean() -> nan
  Tensor m = mean(zeros({0, 3}), {0});
  CHECK(m.shape() == Shape{3});
  for (double v : m.to_vector()) CHECK(std::isnan(v));
  CHECK(std::isnan(mean(zeros({0})).item<double>()));
  CHECK(mean(zeros({3, 0}), {0}).shape() == Shape{0});  // reducing a non-empty dim of an empty tensor: empty
}

TEST_CASE("reduce: layouts agree (views, permuted copies, large column blocks, threads)") {
  // (3, 70, 300): dim 1 is a middle block (column kernel, > 256 columns), dim 2 rows.
  Generator gen(5);
  Tensor x = randn({3, 70, 300}, {.dtype = DType::Float64}, &gen);
  Tensor xt = permute(x, {0, 2, 1}).contiguous();  // the same data with dim 1 trailing
  CHECK(allclose(amax(x, {1}), amax(xt, {2}), 0, 0));
  CHECK(allclose(amin(x, {1}), amin(xt, {2}), 0, 0));
  CHECK(ints(argmax(x, 1)) == ints(argmax(xt, 2)));
  CHECK(allclose(var(x, {1}), var(xt, {2}), 1e-12, 1e-12));
  CHECK(allclose(logsumexp(x, {1}), logsumexp(xt, {2}), 1e-12, 1e-12));
  CHECK(allclose(norm(x, 3, {1}), norm(xt, 3, {2}), 1e-12, 1e-12));
  CHECK(allclose(norm(x, kInf, {1}), norm(xt, kInf, {2}), 0, 0));
  CHECK(allclose(cumsum(x, 1), permute(cumsum(xt, 2), {0, 2, 1}), 1e-12, 1e-12));
  // Non-contiguous inputs: a dense transposed view (no copy) and a strided slice (copy).
  Tensor v = transpose(x, 1, 2);  // (3, 300, 70)
  CHECK(allclose(var(v, {0, 2}), var(v.contiguous(), {0, 2}), 1e-12, 1e-12));
  CHECK(allclose(amax(v, {2}), amax(v.contiguous(), {2}), 0, 0));
  CHECK(allclose(logsumexp(v, {1}), logsumexp(v.contiguous(), {1}), 1e-12, 1e-12));
  Tensor s = slice(x, 2, 0, 300, 3);  // (3, 70, 100), stride 3
  CHECK(allclose(hm::std(s, {0, 2}), hm::std(s.contiguous(), {0, 2}), 1e-12, 1e-12));
  CHECK(allclose(norm(s, 2, {1}), norm(s.contiguous(), 2, {1}), 1e-12, 1e-12));
  CHECK(allclose(cumsum(s, 2), cumsum(s.contiguous(), 2), 1e-12, 1e-12));
  CHECK(ints(argmin(s, 1)) == ints(argmin(s.contiguous(), 1)));
  // float32 kernels (vectorised exp/log) agree with float64 on every layout.
  Tensor x32 = x.to(DType::Float32);
  for (int64_t d : {1, 2}) {
    CHECK(allclose(logsumexp(x32, {d}), logsumexp(x, {d}), 2e-6, 1e-6));
    CHECK(allclose(norm(x32, 3, {d}), norm(x, 3, {d}), 1e-5, 1e-6));
    CHECK(allclose(var(x32, {d}), var(x, {d}), 1e-5, 1e-6));
  }
  Tensor a64 = x.clone().requires_grad_(), a32 = x32.clone().requires_grad_();
  sum(norm(a64, 3, {2})).backward();
  sum(norm(a32, 3, {2})).backward();
  CHECK(allclose(a32.grad(), a64.grad(), 1e-5, 1e-6));
  a64.zero_grad(), a32.zero_grad();
  sum(logsumexp(a64, {1})).backward();
  sum(logsumexp(a32, {1})).backward();
  CHECK(allclose(a32.grad(), a64.grad(), 1e-5, 1e-7));
  // Same numbers on one thread.
  Tensor multi = var(x, {0, 1});
  set_num_threads(1);
  Tensor single = var(x, {0, 1});
  set_num_threads(2);
  CHECK(allclose(multi, single, 0, 0));
}

TEST_CASE("reduce: bad input raises errors naming the function") {
  Tensor x = X();
  CHECK(throws_with([&] { amax(x, {3}); }, {"[amax]", "dim 3"}));
  CHECK(throws_with([&] { amin(x, {0, 0}); }, {"[amin]", "repeated"}));
  CHECK(throws_with([&] { max(x, -4); }, {"[max]", "dim -4"}));
  CHECK(throws_with([&] { argmin(x, 5); }, {"[argmin]", "dim 5"}));
  CHECK(throws_with([&] { var(x, {7}); }, {"[var]", "dim 7"}));
  CHECK(throws_with([&] { hm::std(x, {1}, -1); }, {"[std]", "correction"}));
  CHECK(throws_with([&] { logsumexp(x, {-5}); }, {"[logsumexp]", "dim -5"}));
  CHECK(throws_with([&] { norm(x, 2, {3}); }, {"[norm]", "dim 3"}));
  CHECK(throws_with([&] { cumsum(x, 3); }, {"[cumsum]", "dim 3"}));
  // Empty reductions have no identity for max/min.
  Tensor e = zeros({0, 3});
  CHECK(throws_with([&] { amax(e, {0}); }, {"[amax]", "empty", "(0, 3)"}));
  CHECK(throws_with([&] { argmax(e, 0); }, {"[argmax]", "empty"}));
  CHECK(amax(e, {1}).shape() == Shape{0});  // nothing to reduce per (empty) output row
  CHECK(allclose(norm(e, 2, {0}), {0, 0, 0}));
  CHECK(logsumexp(e, {0}).to_vector() == std::vector<double>(3, -kInf));  // log(0), like torch
  // Dtypes.
  Tensor xb = x.to(DType::Bool);
  CHECK(throws_with([&] { amax(xb); }, {"[amax]", "bool"}));
  CHECK(throws_with([&] { var(x.to(DType::Int64)); }, {"[var]", "int64"}));
  CHECK(throws_with([&] { logsumexp(x.to(DType::Int64), {0}); }, {"[logsumexp]", "int64"}));
  CHECK(throws_with([&] { norm(x.to(DType::Int64)); }, {"[norm]", "int64"}));
}

TEST_CASE("reduce: sum / amax / max / argmax / logsumexp / var / norm over an empty dimension, as in PyTorch 1.13") {
  Tensor e = zeros({3, 0}, {.dtype = DType::Float64});
  // torch.zeros(3, 0).sum(1) -> [0., 0., 0.]; its gradient is the empty (3, 0)
  Tensor s = sum(e, {1});
  CHECK(s.shape() == Shape{3});
  CHECK(allclose(s, {0, 0, 0}));
  // torch.zeros(3, 0).logsumexp(1) -> [-inf, -inf, -inf]
  for (double v : logsumexp(e, {1}).to_vector()) CHECK(v == -kInf);
  // torch.zeros(3, 0).var(1) / .std(1) -> [nan, nan, nan]
  for (double v : var(e, {1}).to_vector()) CHECK(std::isnan(v));
  for (double v : hm::std(e, {1}).to_vector()) CHECK(std::isnan(v));
  // torch.linalg.vector_norm(torch.zeros(3, 0), ord=p, dim=1) -> [0., 0., 0.] for p = 2, 1, 0
  for (double p : {2.0, 1.0, 0.0}) CHECK(allclose(norm(e, p, {1}), {0, 0, 0}));
  // amax(): "Expected reduction dim 1 to have non-zero size" (also amin, max, min, argmax, argmin,
  // and vector_norm with ord=+-inf: "cannot compute the inf norm on the dimension 1")
  CHECK(throws_with([&] { amax(e, {1}); }, {"[amax]"}));
  CHECK(throws_with([&] { amin(e, {1}); }, {"[amin]"}));
  CHECK(throws_with([&] { max(e, 1); }, {"[max]"}));
  CHECK(throws_with([&] { min(e, 1); }, {"[min]"}));
  CHECK(throws_with([&] { argmax(e, 1); }, {"[argmax]"}));
  CHECK(throws_with([&] { argmin(e, 1); }, {"[argmin]"}));
  CHECK(throws_with([&] { norm(e, kInf, {1}); }, {"[norm]"}));
  CHECK(throws_with([&] { norm(e, -kInf, {1}); }, {"[norm]"}));
  // torch.zeros(0).amax() without dim is an error too; reducing a non-empty dim of an empty
  // tensor is fine: torch.zeros(3, 0).amax(0) -> tensor([]) of shape (0,)
  CHECK(throws_with([&] { amax(zeros({0})); }, {"[amax]"}));
  CHECK(amax(e, {0}).shape() == Shape{0});
}

namespace sum_to_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("sum_to: a broadcast gradient summed back to the input's shape, and its errors") {
  Tensor g = reshape(arange(0.0, 24.0, 1.0, {.dtype = DType::Float64}), {2, 3, 4});
  CHECK(allclose(sum_to(g, {2, 3, 4}), g.to_vector()));
  CHECK(allclose(sum_to(g, {3, 1}), sum(sum(g, {0}), {1}, true).to_vector()));
  CHECK(allclose(sum_to(g, {4}), sum(g, {0, 1}).to_vector()));
  CHECK(allclose(sum_to(g, {}), {276.0}));
  CHECK(throws_with([&] { sum_to(g, {5}); }, {"[sum_to]", "cannot reduce"}));
  CHECK(throws_with([&] { sum_to(g, {1, 2, 3, 4}); }, {"[sum_to]", "cannot reduce"}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return sum_to(in[0], {3, 1}); }, {leaf64({2, 3, 4}, 5)}));
}

}  // namespace sum_to_cases

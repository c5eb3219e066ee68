// Reductions beyond sum: amax/amin, max/min/argmax/argmin, var/std, logsumexp, norm, cumsum.
// Expected values come from PyTorch 1.13 (/usr/bin/python3) with
//   X = torch.tensor([[[3., -1, 4, 1], [-5, 9, 2, 6], [5, 3, 5, 8]],
//                     [[9, 7, 9, 3], [2, -3, 8, 4], [6, 2, 6, 4]]], dtype=torch.float64)
// and the snippet quoted next to each check.
#include <limits>

#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

Tensor X() {  // (2, 3, 4) float64
  return from_vector(std::vector<double>{3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, -3, 8, 4, 6, 2, 6, 4},
                     {2, 3, 4});
}

std::vector<int64_t> ints(const Tensor& t) { return t.to_vector_as<int64_t>(); }

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// gradcheck of a unary reduction f on a (2, 3, 4) input, contiguous and through a transpose.
template <class F>
void gradcheck_both_layouts(F f, uint64_t seed = 3) {
  Tensor x = leaf64({2, 3, 4}, seed);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x}));
  Tensor y = leaf64({4, 3, 2}, seed + 1);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(transpose(in[0], 0, 2)); }, {y}));
}

}  // namespace

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
  // Issue 16: `omp simd reduction(max:)` starts its lanes at -FLT_MAX, so with clang an
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

TEST_CASE("reduce: mean over an empty dimension is NaN, as in PyTorch") {
  // torch.zeros(0, 3).mean(0) -> tensor([nan, nan, nan]); torch.zeros(0).mean() -> nan
  Tensor m = mean(zeros({0, 3}), {0});
  CHECK(m.shape() == Shape{3});
  for (double v : m.to_vector()) CHECK(std::isnan(v));
  CHECK(std::isnan(mean(zeros({0})).item<double>()));
  CHECK(mean(zeros({3, 0}), {0}).shape() == Shape{0});  // reducing a non-empty dim of an empty tensor: empty
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
  Tensor t = tensor({2, 5, 5, 1, 5});
  CHECK(argmax(t, 0).item<int64_t>() == 1);
  CHECK(ints(argmax(reshape(t, {5, 1}), 0)) == std::vector<int64_t>{1});
  Tensor tc = from_vector(std::vector<double>{2, 7, 5, 7, 5, 1}, {3, 2});  // columns (2,5,5) and (7,7,1)
  CHECK(ints(argmax(tc, 0)) == std::vector<int64_t>{1, 0});
  CHECK(ints(argmin(tc, 0)) == std::vector<int64_t>{0, 2});
  // 0-d input.
  CHECK(max(scalar_tensor(4.0), 0).values.item<double>() == 4);
  CHECK(argmax(scalar_tensor(4.0), -1).item<int64_t>() == 0);
}

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
  CHECK(allclose(var(add(tensor({1, 2, 3, 4}), 1e7)), {5.0 / 3.0}, 1e-6));
  // One sample with correction 1: 0/0 = NaN, like PyTorch.
  CHECK(std::isnan(var(tensor({2})).item<double>()));
}

TEST_CASE("reduce: logsumexp values and stability") {
  Tensor x = X();
  CHECK(allclose(logsumexp(x, {1}), {5.1269679984, 9.0025209718, 5.3490122168, 8.1277308716, 9.0494556097, 7.0067604435,
                                     9.3490122168, 4.8619948041}));                  // X.logsumexp(1)
  CHECK(allclose(logsumexp(x, {0, 2}), {9.7642632086, 9.3550382426, 8.334883147}));  // X.logsumexp((0,2))
  CHECK(allclose(logsumexp(tensor({1000, 1000}), {0}), {1000.6931471806}, 1e-6));    // 1000 + log 2, no overflow
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

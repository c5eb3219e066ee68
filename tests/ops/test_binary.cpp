// The binary ops: pow(tensor, tensor), maximum/minimum, the in-place add_/mul_ and the errors
// of the elementwise family (add/sub/mul/div run through every other test; scalar promotion:
// test_scalar_promotion.cpp).
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

// Reference: a = [[0,0,2],[-2,1.5,3]], b = [2,0,-0.5]; y = torch.pow(a, b); y.sum().backward()
TEST_CASE("pow(tensor, tensor): values, PyTorch's guards, broadcasting gradcheck") {
  Tensor a = doubles({0, 0, 2, -2, 1.5, 3}, {2, 3}).requires_grad_(true);
  Tensor b = doubles({2, 0, -0.5}).requires_grad_(true);
  Tensor y = pow(a, b);
  CHECK(allclose(y, {0, 1, 0.7071067811865476, 4, 1, 0.5773502691896257}));
  sum(y).backward();
  CHECK(allclose(a.grad(), {0, 0, -0.1767766952966369, -4, 0, -0.09622504486493763}));
  std::vector<double> gb = b.grad().to_vector();
  CHECK(std::isnan(gb[0]));  // log(-2): NaN like PyTorch (a == 0, b >= 0 contributes 0)
  CHECK(gb[1] == doctest::Approx(0.4054651081081644));
  CHECK(gb[2] == doctest::Approx(1.1244131723318376));

  Tensor pa = leaf64({2, 3}, 5);
  Tensor pb = leaf64({3}, 6);
  {
    NoGradGuard ng;
    pa = add(abs(pa), 0.5).requires_grad_(true);
  }
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return pow(in[0], in[1]); }, {pa, pb}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return pow(transposed_view(in[0]), in[1]); },
                  {pa, leaf64({2}, 7)}));
}

// Reference: a = [1,2,3,4], b = [2,2,1,5]; torch.maximum(a, b).sum().backward() (ties split in half)
TEST_CASE("maximum/minimum: values, tie gradients like PyTorch, broadcasting gradcheck") {
  Tensor a = doubles({1, 2, 3, 4}).requires_grad_(true);
  Tensor b = doubles({2, 2, 1, 5}).requires_grad_(true);
  Tensor mx = maximum(a, b);
  CHECK(allclose(mx, {2, 2, 3, 5}));
  sum(mx).backward();
  CHECK(allclose(a.grad(), {0, 0.5, 1, 0}));
  CHECK(allclose(b.grad(), {1, 0.5, 0, 1}));
  a.zero_grad();
  b.zero_grad();
  Tensor mn = minimum(a, b);
  CHECK(allclose(mn, {1, 2, 1, 4}));
  sum(mn).backward();
  CHECK(allclose(a.grad(), {1, 0.5, 0, 1}));
  CHECK(allclose(b.grad(), {0, 0.5, 1, 0}));
  CHECK(std::isnan(maximum(doubles({std::nan("")}), doubles({1})).item<double>()));
  CHECK(allclose(maximum(tensor({1, 5}, {}, {.dtype = DType::Int64}), tensor({3, 2}, {}, {.dtype = DType::Int64})),
                 {3, 5}));

  CHECK(gradcheck([](const std::vector<Tensor>& in) { return maximum(in[0], in[1]); },
                  {leaf64({3, 4}, 1), leaf64({4}, 2)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return minimum(in[0], in[1]); },
                  {leaf64({3, 1}, 3), leaf64({1, 4}, 4)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return maximum(transposed_view(in[0]), in[1]); },
                  {leaf64({4, 3}, 5), leaf64({4}, 6)}));
}

TEST_CASE("add_ and mul_: in place, broadcast, strided, version bump, grad guard") {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  const uint64_t v0 = x.version();
  add_(x, tensor({10.0, 20.0, 30.0}), 0.5);
  CHECK(allclose(x, {6, 12, 18, 9, 15, 21}));
  CHECK(x.version() > v0);
  mul_(x, 2.0);
  CHECK(allclose(x, {12, 24, 36, 18, 30, 42}));
  // A strided (transposed) target.
  Tensor base = doubles({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = Tensor::view_of(base.storage(), {3, 2}, {1, 3}, 0, DType::Float64);
  add_(t, doubles({1, 2}));
  CHECK(allclose(base, {2, 3, 4, 6, 7, 8}));
  Tensor big = ones({70000});  // large enough to run in parallel
  add_(big, full({70000}, 2.0), -1.0);
  mul_(big, 3.0);
  CHECK(allclose(sum(big), {-210000}));
  // An optimizer step on a parameter runs under NoGradGuard; outside it, it is an error.
  Tensor p = leaf64({3}, 1);
  CHECK(throws_with([&] { add_(p, doubles({1, 1, 1})); }, {"[add_]", "requires grad", "NoGradGuard"}));
  CHECK(throws_with([&] { mul_(p, 0.5); }, {"[mul_]", "requires grad"}));
  {
    NoGradGuard ng;
    std::vector<double> before = p.to_vector();
    add_(p, doubles({1, 1, 1}), -0.1);
    CHECK(p.to_vector()[0] == doctest::Approx(before[0] - 0.1));
  }
  // A tensor saved for backward and then updated in place is caught by the version check.
  Tensor q = leaf64({3}, 2);
  Tensor e = exp(q);
  {
    NoGradGuard ng;
    mul_(e, 2.0);
  }
  CHECK(throws_with([&] { sum(e).backward(); }, {"modified in place"}));
}

TEST_CASE("elementwise: bad inputs name the op and the offending shapes/dtypes") {
  Tensor f = tensor({1.0, 2.0, 3.0});
  Tensor bl = gt(f, 1.5);
  CHECK(throws_with([&] { exp(bl); }, {"[exp]", "floating-point", "bool (3,)"}));
  CHECK(throws_with([&] { tanh(arange(3)); }, {"[tanh]", "int64"}));
  CHECK(throws_with([&] { gelu(Tensor()); }, {"[gelu]", "undefined"}));
  CHECK(throws_with([&] { maximum(f, f.to(DType::Float64)); }, {"[maximum]", "float32", "float64"}));
  CHECK(throws_with([&] { pow(f, tensor({1.0, 2.0})); }, {"[pow]", "(3,)", "(2,)"}));
  CHECK(throws_with([&] { pow(arange(3), arange(3)); }, {"[pow]", "floating-point", "int64"}));
  CHECK(throws_with([&] { lt(f, arange(3)); }, {"[lt]", "float32", "int64"}));
  CHECK(throws_with([&] { where(f, f, f); }, {"[where]", "condition must be bool", "float32 (3,)"}));
  CHECK(throws_with([&] { where(bl, f, f.to(DType::Float64)); }, {"[where]", "dtype mismatch"}));
  CHECK(throws_with([&] { where(bl, f, tensor({1.0, 2.0})); }, {"[where]", "(3,)", "(2,)"}));
  CHECK(throws_with([&] { masked_fill(f, f, 0.0); }, {"[masked_fill]", "mask must be bool", "float32"}));
  CHECK(throws_with(
      [&] {
        masked_fill(f, gt(zeros({2, 3}), 0.0), 0.0);
      },
      {"[masked_fill]", "(2, 3)", "does not broadcast to x (3,)"}));
  CHECK(throws_with([&] { masked_fill(f, gt(zeros({2}), 0.0), 0.0); }, {"[masked_fill]", "(3,)", "(2,)"}));
  Tensor x = zeros({3});
  CHECK(throws_with([&] { add_(x, zeros({2, 3})); }, {"[add_]", "(2, 3)", "(3,)"}));
  CHECK(throws_with([&] { add_(x, zeros({3}, {.dtype = DType::Float64})); }, {"[add_]", "dtype mismatch"}));
  Tensor expanded = Tensor::view_of(x.storage(), {2, 3}, {0, 1}, 0, DType::Float32);
  CHECK(throws_with([&] { mul_(expanded, 2.0); }, {"[mul_]", "broadcast view"}));
  CHECK(throws_with([&] { clamp(f, std::nan(""), 1); }, {"[clamp]", "NaN"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] pow, maximum, minimum gradients match the CPU") {
  announce_targets();
  for (DType dt : {DType::Float64, DType::Float32}) {
    const Tensor a = positive({2, 3, 4}, dt, 1), b = values({3, 1}, dt, 2, 1.0);
    check_against_cpu("pow broadcast", [](auto& x) { return pow(x[0], x[1]); }, {a, b});
    check_against_cpu("pow transposed", [](auto& x) { return pow(transposed(x[0]), x[1]); },
                      {positive({4, 3}, dt), values({3, 4}, dt, 3, 1.0)});
    // Integer-valued inputs: ties split the gradient in half.
    const Tensor c = ties({4, 5}, dt, 3), d = ties({5}, dt, 4);
    check_against_cpu("maximum", [](auto& x) { return maximum(x[0], x[1]); }, {c, d});
    check_against_cpu("minimum", [](auto& x) { return minimum(x[1], x[0]); }, {c, d});
  }
  // Only one side needs a gradient (the other an int-free constant).
  check_against_cpu("pow one side", [](auto& x) { return pow(x[0], x[1].detach()); },
                    {positive({6}), values({6}, DType::Float64, 9, 1.0)});
}

TEST_CASE("[cuda] add_ and mul_ in place match the CPU") {
  announce_targets();
  for_each_device([](const Target& t) {
    for (DType dt : {DType::Float32, DType::Float64, DType::Int64}) {
      // x: a strided column slice (4, 3) of a (4, 6) tensor; y: a (3,) row broadcast over it.
      auto run = [&](Device dev) {
        Tensor base = values({4, 6}, dt, 1).to(dev).contiguous();
        Tensor x = view(base, {4, 3}, {6, 2}, 1);
        add_(x, values({3}, dt, 2).to(dev), 2.0);
        Tensor xt = view(base, {6, 4}, {1, 6});  // the whole tensor transposed
        mul_(xt, -3.0);
        add_(xt, view(values({4, 6}, dt, 3).to(dev), {6, 4}, {1, 6}), 0.5);
        return base.to(Device::cpu());
      };
      Tensor ref = on_cpu([&] { return run(Device::cpu()); });
      INFO(t.name << " " << dtype_name(dt));
      check_close(ref, run(t.device), "add_/mul_");
    }
  });
}

}  // namespace cuda_cases

namespace rsub_cases {

using namespace hm;
using namespace hm::test;

// rsub(x, s) = s - x (what `s - x` calls), gradient -1; an int64 tensor beside a floating number
// gives float32, as in PyTorch.
TEST_CASE("rsub: s - x, its gradient and scalar promotion") {
  Tensor x = tensor({1.0, -2.0, 0.5}, {3}, {.dtype = DType::Float64}).requires_grad_(true);
  Tensor y = rsub(x, 3.0);
  CHECK(allclose(y, {2.0, 5.0, 2.5}));
  CHECK(allclose(3.0 - x, {2.0, 5.0, 2.5}));
  sum(y).backward();
  CHECK(allclose(x.grad(), {-1.0, -1.0, -1.0}));
  Tensor r = rsub(arange(3), 0.5);
  CHECK(r.dtype() == DType::Float32);
  CHECK(allclose(r.to(DType::Float64), {0.5, -0.5, -1.5}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return rsub(in[0], 1.5); }, {leaf64({2, 3}, 4)}));
}

}  // namespace rsub_cases

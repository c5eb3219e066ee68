#include <sstream>

#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::throws_with;

TEST_CASE("tensor: factories, metadata and item") {
  Tensor z = zeros({2, 3});
  CHECK(z.shape() == Shape{2, 3});
  CHECK(z.dtype() == DType::Float32);
  CHECK(z.is_contiguous());
  CHECK(z.numel() == 6);
  CHECK(allclose(ones({2}), {1, 1}));
  CHECK(allclose(arange(0.0, 5.0, 2.0), {0, 2, 4}));
  CHECK(arange(4).dtype() == DType::Int64);
  CHECK(allclose(linspace(-1, 1, 5), {-1, -0.5, 0, 0.5, 1}));
  CHECK(full({}, 2.5).item<double>() == 2.5);
  CHECK(throws_with([] { zeros({2}).item<double>(); }, {"[item]", "(2,)"}));
}

TEST_CASE("tensor methods: x.reshape(...), x.sum(...), x[i], std::ostream << x forward to the ops") {
  Tensor x = arange(6).to(DType::Float32).reshape({2, 3});  // [[0 1 2] [3 4 5]]
  CHECK(x.shape() == Shape{2, 3});
  CHECK(x.size(-1) == 3);
  CHECK(x.view({3, 2}).shape() == Shape{3, 2});
  CHECK(x.unsqueeze(0).shape() == Shape{1, 2, 3});
  CHECK(x.unsqueeze(0).squeeze(0).shape() == Shape{2, 3});
  CHECK(x.unsqueeze(1).squeeze().shape() == Shape{2, 3});
  CHECK(x.transpose(0, 1).to_vector() == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(x.permute({1, 0}).to_vector() == x.transpose(0, 1).to_vector());
  CHECK(x.flatten().shape() == Shape{6});
  CHECK(x[1].to_vector() == std::vector<double>{3, 4, 5});
  CHECK(x.select(1, 2).to_vector() == std::vector<double>{2, 5});
  CHECK(x.sum().item<double>() == 15);
  CHECK(x.sum({1}).to_vector() == std::vector<double>{3, 12});
  CHECK(x.sum({0}, true).shape() == Shape{1, 3});
  CHECK(x.mean({1}).to_vector() == std::vector<double>{1, 4});
  CHECK(x.matmul(x.transpose(0, 1)).to_vector() == std::vector<double>{5, 14, 14, 50});
  // The methods are the ops: the same gradients and the same errors.
  Tensor w = ones({2, 3}).requires_grad_();
  (w * x).sum().backward();
  CHECK(w.grad().to_vector() == x.to_vector());
  CHECK(throws_with([&] { x.reshape({4, 2}); }, {"reshape"}));
  CHECK(throws_with([&] { (void)x[2]; }, {"select", "2"}));
  std::ostringstream os;
  os << x;
  CHECK(os.str() == to_string(x));
}

TEST_CASE("tensor: dtype conversion round trip, bfloat16 rounding") {
  Tensor x = tensor({1.5, -2.25, 3.0});
  CHECK(allclose(x.to(DType::Float64), {1.5, -2.25, 3.0}));
  CHECK(x.to(DType::Int64).to_vector_as<int64_t>() == std::vector<int64_t>{1, -2, 3});
  Tensor b = tensor({1.0f + 1.0 / 256}).to(DType::BFloat16).to(DType::Float32);  // 1+2^-8 rounds to even: 1
  CHECK(b.item<double>() == 1.0);
}

TEST_CASE("random: same seed same numbers, normal moments") {
  Generator g1(42), g2(42);
  Tensor a = randn({1000}, {}, &g1), b = randn({1000}, {}, &g2);
  CHECK(allclose(a, b, 0, 0));
  Tensor c = randn({1000}, {}, &g1);  // the stream advanced
  CHECK_FALSE(allclose(a, c, 0, 0.5));
  Generator g3(7);
  Tensor big = randn({200000}, {.dtype = DType::Float64}, &g3);
  CHECK(std::fabs(mean(big).item<double>()) < 0.01);
  Generator g4(7);
  Tensor u = rand({100000}, {}, &g4);
  CHECK(std::fabs(mean(u).item<double>() - 0.5) < 0.01);
  // Thread count does not change the numbers.
  set_num_threads(1);
  Generator g5(9);
  Tensor one = randn({100000}, {}, &g5);
  set_num_threads(2);
  Generator g6(9);
  Tensor two = randn({100000}, {}, &g6);
  CHECK(allclose(one, two, 0, 0));
}

TEST_CASE("arithmetic: broadcasting values") {
  Tensor a = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  Tensor b = tensor({10.0, 20.0, 30.0});
  CHECK(allclose(a + b, {11, 22, 33, 14, 25, 36}));
  CHECK(allclose(a * tensor({2.0, 3.0}, {2, 1}), {2, 4, 6, 12, 15, 18}));
  CHECK(allclose(a - 1.0, {0, 1, 2, 3, 4, 5}));
  CHECK(allclose(a / b, {0.1, 0.1, 0.1, 0.4, 0.25, 0.2}));
  CHECK(throws_with([&] { add(a, tensor({1.0, 2.0})); }, {"[add]", "(2, 3)", "(2,)"}));
  CHECK(throws_with([&] { add(a, a.to(DType::Float64)); }, {"[add]", "float32", "float64"}));
}

TEST_CASE("sum: dims, keepdim, layouts") {
  Tensor a = arange(0.0, 24.0, 1.0, {.dtype = DType::Float64});
  Tensor x = Tensor::view_of(a.storage(), {2, 3, 4}, contiguous_strides({2, 3, 4}), 0, DType::Float64);
  CHECK(sum(x).item<double>() == 276);
  CHECK(allclose(sum(x, {2}), {6, 22, 38, 54, 70, 86}));
  CHECK(allclose(sum(x, {0}), {12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
  CHECK(allclose(sum(x, {0, 2}), {60, 92, 124}));
  CHECK(sum(x, {1}, true).shape() == Shape{2, 1, 4});
  CHECK(throws_with([&] { sum(x, {3}); }, {"[sum]", "dim 3"}));
}

TEST_CASE("autograd: accumulation, reuse, broadcast, retain_graph") {
  Tensor x = tensor({1, 2, 3}, {}, {.dtype = DType::Float64, .requires_grad = true});
  Tensor w = tensor({2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  Tensor y = sum(x * x * w + x);  // dy/dx = 2xw + 1, dy/dw = sum x^2
  y.backward({}, true);
  CHECK(allclose(x.grad(), {5, 9, 13}));
  CHECK(allclose(w.grad(), {14}));
  y.backward();  // accumulates
  CHECK(allclose(x.grad(), {10, 18, 26}));
  CHECK(throws_with([&] { y.backward(); }, {"already freed"}));
}

TEST_CASE("autograd: no_grad, detach, hooks, saved-tensor version check") {
  Tensor x = tensor({1, 2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  {
    NoGradGuard guard;
    CHECK_FALSE((x * x).requires_grad());
  }
  CHECK_FALSE(x.detach().requires_grad());
  Tensor y = x * 3.0;
  y.register_hook([](const Tensor& g) { return g * 2.0; });
  sum(y).backward();
  CHECK(allclose(x.grad(), {6, 6}));

  Tensor a = tensor({1, 2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  Tensor b = tensor({3, 4}, {}, {.dtype = DType::Float64});
  Tensor c = a * b;
  b.fill_(0);  // b was saved by mul
  CHECK(throws_with([&] { sum(c).backward(); }, {"backward of mul", "modified in place"}));
}

TEST_CASE("autograd: anomaly mode names the op") {
  AnomalyGuard anomaly;
  Tensor x = tensor({1, 0}, {}, {.dtype = DType::Float64, .requires_grad = true});
  CHECK(throws_with([&] { div(x, tensor({0, 0}, {}, {.dtype = DType::Float64})); }, {"anomaly", "'div'"}));
}

TEST_CASE("gradcheck: arithmetic with broadcasting") {
  Tensor a = hm::test::leaf64({2, 3}, 1), b = hm::test::leaf64({3}, 2), c = hm::test::leaf64({2, 1}, 3);
  CHECK(gradcheck([](const std::vector<Tensor>& v) { return (v[0] + v[1]) * v[2] - v[0] / (v[1] * v[1] + 1.0); },
                  {a, b, c}));
  CHECK(gradcheck([](const std::vector<Tensor>& v) { return sum(v[0], {1}); }, {a}));
  CHECK(gradcheck([](const std::vector<Tensor>& v) { return mean(v[0], {0}, true); }, {a}));
}

TEST_CASE("gradcheck catches a wrong backward") {
  Tensor a = hm::test::leaf64({3}, 4);
  auto wrong = [](const std::vector<Tensor>& v) {
    Tensor out = v[0].detach() * 2.0;
    return autograd::record("wrong", out, {v[0]}, [](const Tensor& g, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{g * 3.0};
    });
  };
  CHECK(throws_with([&] { gradcheck(wrong, {a}); }, {"Jacobian mismatch"}));
}

TEST_CASE("random: consecutive float64 draws do not overlap") {
  Generator g(1);
  Tensor a = rand({1000}, {.dtype = DType::Float64}, &g);
  Tensor b = rand({1000}, {.dtype = DType::Float64}, &g);
  std::vector<double> va = a.to_vector(), vb = b.to_vector();
  for (double x : vb) CHECK(std::find(va.begin(), va.end(), x) == va.end());
}

// The PyTorch-style methods a PyTorch user reaches for (ops/tensor_methods.cpp): values and
// dtypes against PyTorch 2.15, whose snippets stand beside the expected numbers; the
// tensor({...}) factory's dtype from its literals; std::cout << shape.
#include <sstream>

#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::throws_with;

namespace {

// a = torch.tensor([[-1.5, 0.5, 2.0], [3.0, -0.25, 1.0]])
Tensor a() { return tensor({-1.5, 0.5, 2.0, 3.0, -0.25, 1.0}, {2, 3}); }

}  // namespace

TEST_CASE("tensor methods: elementwise relu, exp, log, abs, pow, clamp as torch") {
  CHECK(allclose(a().relu(), {0, 0.5, 2, 3, 0, 1}));  // a.relu()
  // a.exp()
  CHECK(allclose(a().exp(), {0.22313016653060913, 1.6487212181091309, 7.389056205749512, 20.08553695678711,
                             0.7788007855415344, 2.7182817459106445}));
  CHECK(allclose(a().abs(), {1.5, 0.5, 2, 3, 0.25, 1}));  // a.abs()
  // a.abs().log()
  CHECK(allclose(a().abs().log(), {0.40546512603759766, -0.6931471824645996, 0.6931471824645996, 1.0986123085021973,
                                   -1.3862943649291992, 0.0}));
  CHECK(allclose(a().pow(2), {2.25, 0.25, 4, 9, 0.0625, 1}));  // a.pow(2)
  // a.pow(torch.tensor([2.0, 1.0, 0.5])): (-0.25)^1 stays negative, 3^2 = 9
  CHECK(allclose(a().pow(tensor({2.0, 1.0, 0.5})), {2.25, 0.5, 1.4142135381698608, 9, -0.25, 1}));
  CHECK(allclose(a().clamp(-1, 1), {-1, 0.5, 1, 1, -0.25, 1}));  // a.clamp(-1, 1)
  for (const Tensor& y : {a().relu(), a().exp(), a().log(), a().abs(), a().pow(2), a().clamp(-1, 1)}) {
    CHECK(y.dtype() == DType::Float32);  // torch: float32 in, float32 out
    CHECK(y.shape() == Shape{2, 3});
  }
}

TEST_CASE("tensor methods: softmax and log_softmax along a dim") {
  // a.softmax(1)
  CHECK(allclose(a().softmax(1), {0.024093767628073692, 0.17803020775318146, 0.7978760004043579, 0.851709246635437,
                                  0.03302435204386711, 0.11526630818843842}));
  // a.log_softmax(0)
  CHECK(allclose(a().log_softmax(0), {-4.511047840118408, -0.38687101006507874, -0.31326165795326233,
                                      -0.011047743260860443, -1.1368709802627563, -1.31326162815094}));
  CHECK(throws_with([] { a().softmax(2); }, {"softmax", "2"}));
}

TEST_CASE("tensor methods: max() and min() reduce over every element to a 0-d tensor") {
  // a.max() -> tensor(3.), a.max().shape -> torch.Size([]); a.min() -> tensor(-1.5000)
  CHECK(a().max().shape() == Shape{});
  CHECK(a().max().item<double>() == 3.0);
  CHECK(a().min().item<double>() == -1.5);
  CHECK(a().max().dtype() == DType::Float32);
  // torch.tensor([-3, 2]).max() -> tensor(2), int64
  Tensor i = tensor({-3, 2});
  CHECK(i.max().dtype() == DType::Int64);
  CHECK(i.max().item<int64_t>() == 2);
  // x = torch.tensor([1., 3., 3., 2.], requires_grad=True); x.max().backward(); x.grad -> [0, .5, .5, 0]
  Tensor x = tensor({1.0, 3.0, 3.0, 2.0}).requires_grad_();
  x.max().backward();
  CHECK(allclose(x.grad(), {0, 0.5, 0.5, 0}));
}

TEST_CASE("tensor methods: add_ and mul_ write in place and return the tensor") {
  // b = torch.tensor([1., 2., 3.]); b.add_(torch.tensor([10., 20., 30.]), alpha=0.5) -> [6, 12, 18]
  Tensor b = tensor({1.0, 2.0, 3.0});
  const uint64_t v = b.version();
  Tensor& same = b.add_(tensor({10.0, 20.0, 30.0}), 0.5);
  CHECK(same.same(b));
  CHECK(allclose(b, {6, 12, 18}));
  CHECK(allclose(b.mul_(2), {12, 24, 36}));  // b.mul_(2)
  CHECK(b.version() == v + 2);
  CHECK(allclose(b.add_(tensor({1.0})), {13, 25, 37}));  // broadcast into b
  CHECK(throws_with([&] { b.add_(tensor({1.0, 2.0})); }, {"[add_]", "(2,)", "(3,)"}));
}

TEST_CASE("tensor methods: the methods are the ops (gradients flow through them)") {
  Tensor x = tensor({-1.0, 0.5, 2.0}, {}, {.dtype = DType::Float64, .requires_grad = true});
  // torch: (x.relu() + x.exp() + x.pow(3) + x.abs()).sum().backward()
  //   x.grad -> [exp(-1) + 3 - 1, 1 + exp(.5) + .75 + 1, 1 + exp(2) + 12 + 1]
  (x.relu() + x.exp() + x.pow(3) + x.abs()).sum().backward();
  CHECK(allclose(x.grad(), {std::exp(-1.0) + 3 - 1, 1 + std::exp(0.5) + 0.75 + 1, 1 + std::exp(2.0) + 12 + 1}, 1e-12,
                 1e-12));
}

TEST_CASE("tensor({...}): integer literals give int64, any floating literal float32, as torch.tensor") {
  // torch.tensor([1, 2, 3]).dtype -> torch.int64
  Tensor i = tensor({1, 2, 3});
  CHECK(i.dtype() == DType::Int64);
  CHECK(i.shape() == Shape{3});
  CHECK(i.to_vector_as<int64_t>() == std::vector<int64_t>{1, 2, 3});
  CHECK(tensor({-4, 5, 6, 7}, {2, 2}).shape() == Shape{2, 2});
  // torch.tensor([1.5, 2]).dtype and torch.tensor([1, 2.5]).dtype -> torch.float32
  CHECK(tensor({1.5, 2.0}).dtype() == DType::Float32);
  CHECK(tensor({1, 2.5}).dtype() == DType::Float32);
  CHECK(tensor({1.0, 2.0, 3.0}).dtype() == DType::Float32);
  // An explicit dtype wins either way: torch.tensor([1, 2], dtype=torch.float64)
  Tensor d = tensor({1, 2}, {}, {.dtype = DType::Float64, .requires_grad = true});
  CHECK(d.dtype() == DType::Float64);
  CHECK(d.requires_grad());
  CHECK(allclose(d, {1, 2}));
  CHECK(throws_with([] { tensor({1, 2, 3}, {2, 2}); }, {"[from_vector]", "3 values", "(2, 2)"}));
}

TEST_CASE("tensor methods: to(Device) and to(DType) convert, x.float() is spelled to(DType::Float32)") {
  Tensor i = tensor({1, 2, 3});
  Tensor f = i.to(DType::Float32);  // torch: i.float()
  CHECK(f.dtype() == DType::Float32);
  CHECK(allclose(f, {1, 2, 3}));
  CHECK(i.to(DType::Float64).dtype() == DType::Float64);  // torch: i.double()
  CHECK(i.to(Device::cpu()).same(i));                      // torch: i.to('cpu') is i
}

TEST_CASE("std::ostream << shape prints it as in error messages") {
  std::ostringstream os;
  os << Shape{2, 3} << " " << tensor({1.0}).shape() << " " << Shape{};
  CHECK(os.str() == "(2, 3) (1,) ()");
}

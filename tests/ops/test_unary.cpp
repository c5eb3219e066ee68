// The unary ops: values and fused backward against PyTorch, float32 kernels, gradcheck.
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

// Reference numbers from torch 1.13 (float64):
//   x = torch.tensor([-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.5], dtype=torch.float64)
//   p = torch.tensor([0.001, 0.5, 1.0, 2.0, 10.0], dtype=torch.float64)
//   F.gelu(x), F.gelu(x, approximate='tanh'), F.silu(x), F.softplus(x, beta=2, threshold=3), ...
TEST_CASE("unary: values vs PyTorch, float64 and float32") {
  for (DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    const double rtol = dt == DType::Float64 ? 1e-12 : 2e-6, atol = dt == DType::Float64 ? 1e-14 : 2e-7;
    Tensor x = doubles({-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.5}).to(dt);
    Tensor p = doubles({0.001, 0.5, 1.0, 2.0, 10.0}).to(dt);
    CHECK(exp(x).dtype() == dt);
    CHECK(allclose(exp(x),
                   {0.049787068367863944, 0.22313016014842982, 0.6065306597126334, 1.0, 1.2840254166877414,
                    2.718281828459045, 12.182493960703473},
                   rtol, atol));
    CHECK(allclose(tanh(x),
                   {-0.9950547536867305, -0.9051482536448664, -0.46211715726000974, 0.0, 0.24491866240370913,
                    0.7615941559557649, 0.9866142981514303},
                   rtol, atol));
    CHECK(allclose(sigmoid(x),
                   {0.04742587317756678, 0.18242552380635635, 0.3775406687981454, 0.5, 0.5621765008857981,
                    0.7310585786300049, 0.9241418199787566},
                   rtol, atol));
    CHECK(allclose(gelu(x),
                   {-0.00404969409489031, -0.10021080190328704, -0.15426876936299344, 0.0, 0.14967658142073093,
                    0.841344746068543, 2.4844758366855597},
                   rtol, atol));
    CHECK(allclose(gelu(x, GeluApprox::Tanh),
                   {-0.0036373920817729943, -0.10042842301976707, -0.15428599017485606, 0.0, 0.149675350701685,
                    0.8411919906082768, 2.484915733910001},
                   rtol, atol));
    CHECK(allclose(silu(x),
                   {-0.14227761953270035, -0.2736382857095345, -0.1887703343990727, 0.0, 0.14054412522144952,
                    0.7310585786300049, 2.3103545499468914},
                   rtol, atol));
    CHECK(allclose(softplus(x, 2.0, 3.0),
                   {0.0012378425688652247, 0.02429367578687103, 0.15663084375911143, 0.34657359027997264,
                    0.48703849209005334, 1.0634640055214863, 2.5},
                   rtol, atol));
    CHECK(allclose(softplus(x),
                   {0.04858735157374206, 0.2014132779827524, 0.4740769841801067, 0.6931471805599453, 0.8259394198788436,
                    1.3132616875182228, 2.5788897342925496},
                   rtol, atol));
    CHECK(allclose(sin(x),
                   {-0.1411200080598672, -0.9974949866040544, -0.479425538604203, 0.0, 0.24740395925452294,
                    0.8414709848078965, 0.5984721441039564},
                   rtol, atol));
    CHECK(allclose(cos(x),
                   {-0.9899924966004454, 0.0707372016677029, 0.8775825618903728, 1.0, 0.9689124217106447,
                    0.5403023058681398, -0.8011436155469337},
                   rtol, atol));
    CHECK(allclose(clamp(x, -1, 1.5), {-1, -1, -0.5, 0, 0.25, 1, 1.5}, rtol, atol));
    CHECK(allclose(relu(x), {0, 0, 0, 0, 0.25, 1, 2.5}, rtol, atol));
    CHECK(allclose(abs(x), {3, 1.5, 0.5, 0, 0.25, 1, 2.5}, rtol, atol));
    CHECK(allclose(neg(x), {3, 1.5, 0.5, 0, -0.25, -1, -2.5}, rtol, atol));
    CHECK(allclose(-x, {3, 1.5, 0.5, 0, -0.25, -1, -2.5}, rtol, atol));
    CHECK(allclose(square(x), {9, 2.25, 0.25, 0, 0.0625, 1, 6.25}, rtol, atol));
    CHECK(allclose(pow(x, 3.0), {-27, -3.375, -0.125, 0, 0.015625, 1, 15.625}, rtol, atol));
    CHECK(allclose(log(p), {-6.907755278982137, -0.6931471805599453, 0.0, 0.6931471805599453, 2.302585092994046}, rtol,
                   atol));
    CHECK(allclose(
        log1p(p),
        {0.0009995003330835331, 0.4054651081081644, 0.6931471805599453, 1.0986122886681098, 2.3978952727983707}, rtol,
        atol));
    CHECK(allclose(sqrt(p), {0.03162277660168379, 0.7071067811865476, 1.0, 1.4142135623730951, 3.1622776601683795},
                   rtol, atol));
    CHECK(allclose(rsqrt(p), {31.622776601683796, 1.414213562373095, 1.0, 0.7071067811865475, 0.31622776601683794},
                   rtol, atol));
    CHECK(allclose(pow(p, 2.5), {3.162277660168379e-08, 0.1767766952966369, 1.0, 5.656854249492381, 316.22776601683796},
                   rtol, atol));
    CHECK(allclose(pow(p, -1.5), {31622.776601683792, 2.8284271247461903, 1.0, 0.3535533905932738, 0.03162277660168379},
                   rtol, atol));
    CHECK(allclose(pow(p, 0.5), sqrt(p), rtol, atol));
    CHECK(allclose(pow(p, -1.0), {1000, 2, 1, 0.5, 0.1}, rtol, atol));
  }
  // Special values follow PyTorch: NaN passes relu/clamp, |-0| = 0, relu(-0) = -0.
  Tensor s = doubles({std::nan(""), -0.0, kInf, -kInf});
  std::vector<double> r = relu(s).to_vector();
  CHECK(std::isnan(r[0]));
  CHECK(std::signbit(r[1]));
  CHECK(std::isnan(clamp(s, 0, 1).to_vector()[0]));
  CHECK(!std::signbit(abs(s).to_vector()[1]));
  CHECK(exp(doubles({-kInf, kInf})).to_vector() == std::vector<double>{0, kInf});
  CHECK(allclose(abs(tensor({-3, 2}, {}, {.dtype = DType::Int64})), {3, 2}));
  CHECK(neg(tensor({-3, 2}, {}, {.dtype = DType::Int64})).dtype() == DType::Int64);
}

// Reference: xx = x.clone().requires_grad_(); f(xx).sum().backward(); xx.grad (same x as above).
TEST_CASE("unary: fused backward values vs PyTorch, float32 and float64") {
  for (DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    const double rtol = dt == DType::Float64 ? 1e-12 : 5e-6, atol = dt == DType::Float64 ? 1e-14 : 5e-7;
    auto grad_of = [&](auto f) {
      Tensor x = doubles({-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.5}).to(dt).requires_grad_(true);
      sum(f(x)).backward();
      return x.grad();
    };
    CHECK(allclose(grad_of([](const Tensor& t) { return gelu(t); }),
                   {-0.01194564720418392, -0.1274691922299796, 0.13250487534383712, 0.5, 0.695373354883636,
                    1.0833154705876864, 1.037611085908145},
                   rtol, atol));
    CHECK(allclose(grad_of([](const Tensor& t) { return gelu(t, GeluApprox::Tanh); }),
                   {-0.011584166630969648, -0.12771079315143308, 0.13263009646535764, 0.5, 0.6953540951510604,
                    1.0829640838457826, 1.037951576212666},
                   rtol, atol));
    CHECK(allclose(grad_of([](const Tensor& t) { return silu(t); }),
                   {-0.08810410601516962, -0.041294154299142946, 0.2600388126973482, 0.5, 0.6237100215701977,
                    0.9276705118714869, 1.0994011113415267},
                   rtol, atol));
    CHECK(allclose(grad_of([](const Tensor& t) { return softplus(t, 2.0, 3.0); }),
                   {0.0024726231566347748, 0.04742587317756679, 0.2689414213699951, 0.5, 0.6224593312018546,
                    0.8807970779778824, 1.0},
                   rtol, atol));
    CHECK(allclose(grad_of([](const Tensor& t) { return tanh(t); }),
                   {0.009866037165440166, 0.1807066389236486, 0.7864477329659274, 1.0, 0.940014848806378,
                    0.41997434161402614, 0.02659222668316057},
                   rtol, atol));
    CHECK(allclose(grad_of([](const Tensor& t) { return sigmoid(t); }),
                   {0.04517665973091214, 0.14914645207033286, 0.2350037122015945, 0.25, 0.24613408273759835,
                    0.19661193324148185, 0.07010371654510807},
                   rtol, atol));
    // Kinks: relu' = 0 at 0 (PyTorch), |x|' = 0 at 0, clamp' = 1 on the open interval only:
    // torch 2.15: x = torch.tensor([-3, -1.5, -.5, 0, .25, 1, 2.5], requires_grad=True)
    //   x.clamp(-1.5, 1.0).sum().backward(); x.grad -> [0, 0, 1, 1, 1, 0, 0] (0 on both bounds)
    CHECK(allclose(grad_of([](const Tensor& t) { return relu(t); }), {0, 0, 0, 0, 1, 1, 1}));
    CHECK(allclose(grad_of([](const Tensor& t) { return abs(t); }), {-1, -1, -1, 0, 1, 1, 1}));
    CHECK(allclose(grad_of([](const Tensor& t) { return clamp(t, -1.5, 1.0); }), {0, 0, 1, 1, 1, 0, 0}));
    CHECK(allclose(grad_of([](const Tensor& t) { return pow(t, 0.0); }), {0, 0, 0, 0, 0, 0, 0}));
  }
}

TEST_CASE("unary: float32 kernels match float64 on large tensors (vector bodies, tails, threads)") {
  Generator gen(3);
  const int64_t n = 100003;  // odd: exercises the vector tails, and large enough to run in parallel
  Tensor x64 = mul(randn({n}, {.dtype = DType::Float64}, &gen), 4.0);
  Tensor pos64 = add(abs(x64), 1e-3);
  Tensor x32 = x64.to(DType::Float32), pos32 = pos64.to(DType::Float32);
  // The float32 input is the float64 one rounded; compare against float64 math on that same input.
  Tensor xr = x32.to(DType::Float64), posr = pos32.to(DType::Float64);
  auto same = [](const Tensor& a32, const Tensor& b64, double rtol, double atol) {
    return allclose(a32.to(DType::Float64), b64, rtol, atol);
  };
  CHECK(same(exp(x32), exp(xr), 2e-7, 0));
  CHECK(same(log(pos32), log(posr), 0, 3e-7));
  CHECK(same(log1p(pos32), log1p(posr), 3e-7, 0));
  CHECK(same(tanh(x32), tanh(xr), 4e-7, 1e-30));
  CHECK(same(sigmoid(x32), sigmoid(xr), 4e-7, 1e-30));
  CHECK(same(gelu(x32), gelu(xr), 1e-6, 1e-6));
  CHECK(same(gelu(x32, GeluApprox::Tanh), gelu(xr, GeluApprox::Tanh), 1e-6, 1e-6));
  CHECK(same(silu(x32), silu(xr), 1e-6, 1e-7));
  CHECK(same(softplus(x32), softplus(xr), 1e-6, 1e-7));
  CHECK(same(sqrt(pos32), sqrt(posr), 2e-7, 0));
  CHECK(same(rsqrt(pos32), rsqrt(posr), 3e-7, 0));
  // The fused backward kernels on the same sizes.
  auto grad_of = [](const Tensor& x, const std::function<Tensor(const Tensor&)>& f) {
    Tensor leaf = x.detach().requires_grad_(true);
    sum(f(leaf)).backward();
    return leaf.grad();
  };
  using Fn = std::function<Tensor(const Tensor&)>;
  for (const auto& entry :
       std::vector<std::pair<const char*, Fn>>{{"gelu", [](const Tensor& t) { return gelu(t); }},
                                               {"gelu_tanh", [](const Tensor& t) { return gelu(t, GeluApprox::Tanh); }},
                                               {"silu", [](const Tensor& t) { return silu(t); }},
                                               {"softplus", [](const Tensor& t) { return softplus(t, 2.0, 5.0); }},
                                               {"tanh", [](const Tensor& t) { return tanh(t); }},
                                               {"sigmoid", [](const Tensor& t) { return sigmoid(t); }}}) {
    const auto& [name_, f] = entry;
    const char* name = name_;  // a variable, not a binding: CAPTURE is a lambda (clang 14)
    CAPTURE(name);
    CHECK(same(grad_of(x32, f), grad_of(xr, f), 2e-6, 2e-6));
  }
  CHECK(same(grad_of(pos32, [](const Tensor& t) { return log(t); }),
             grad_of(posr, [](const Tensor& t) { return log(t); }), 2e-7, 0));
  // Threads do not change the numbers.
  set_num_threads(1);
  Tensor one = gelu(x32);
  set_num_threads(2);
  CHECK(allclose(one, gelu(x32), 0, 0));
}

TEST_CASE("unary: gradcheck of every differentiable op, contiguous and transposed inputs") {
  using Fn = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<const char*, Fn>> any_sign = {
      {"neg", [](const Tensor& t) { return neg(t); }},
      {"exp", [](const Tensor& t) { return exp(t); }},
      {"abs", [](const Tensor& t) { return abs(t); }},
      {"sin", [](const Tensor& t) { return sin(t); }},
      {"cos", [](const Tensor& t) { return cos(t); }},
      {"tanh", [](const Tensor& t) { return tanh(t); }},
      {"sigmoid", [](const Tensor& t) { return sigmoid(t); }},
      {"relu", [](const Tensor& t) { return relu(t); }},
      {"gelu", [](const Tensor& t) { return gelu(t); }},
      {"gelu_tanh", [](const Tensor& t) { return gelu(t, GeluApprox::Tanh); }},
      {"silu", [](const Tensor& t) { return silu(t); }},
      {"softplus", [](const Tensor& t) { return softplus(t, 1.5, 1.0); }},  // both regimes
      {"clamp", [](const Tensor& t) { return clamp(t, -0.7, 0.9); }},
      {"square", [](const Tensor& t) { return square(t); }},
      {"pow3", [](const Tensor& t) { return pow(t, 3.0); }},
  };
  const std::vector<std::pair<const char*, Fn>> positive = {
      {"log", [](const Tensor& t) { return log(t); }},
      {"log1p", [](const Tensor& t) { return log1p(t); }},
      {"sqrt", [](const Tensor& t) { return sqrt(t); }},
      {"rsqrt", [](const Tensor& t) { return rsqrt(t); }},
      {"pow2.5", [](const Tensor& t) { return pow(t, 2.5); }},
      {"pow-1.3", [](const Tensor& t) { return pow(t, -1.3); }},
  };
  auto run = [](const std::vector<std::pair<const char*, Fn>>& ops, bool make_positive) {
    for (const auto& entry : ops) {
      const auto& name = std::get<0>(entry);
      const auto& f = std::get<1>(entry);
      CAPTURE(name);
      for (const Shape& shape : {Shape{3, 4}, Shape{5}, Shape{}}) {
        Tensor x = leaf64(shape, 11, 1.5);
        if (make_positive) {
          NoGradGuard ng;
          x = add(abs(x), 0.3).requires_grad_(true);
        }
        CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x}));
      }
      Tensor x = leaf64({3, 4}, 12, 1.5);
      if (make_positive) {
        NoGradGuard ng;
        x = add(abs(x), 0.3).requires_grad_(true);
      }
      CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(transposed_view(in[0])); }, {x}));
    }
  };
  run(any_sign, false);
  run(positive, true);
}

TEST_CASE("relu passes the gradient through NaN, as in PyTorch 1.13") {
  // x = torch.tensor([nan, -1., 0., 2.], dtype=torch.float64, requires_grad=True); torch.relu(x)
  //   -> [nan, 0., 0., 2.]; .backward(torch.ones(4)); x.grad -> [1., 0., 0., 1.]
  // (ReluBackward is threshold_backward(grad, result, 0): result <= 0 ? 0 : grad, and NaN <= 0 is false)
  for (DType dt : {DType::Float64, DType::Float32}) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Tensor x = tensor({nan, -1, 0, 2}, {}, {.dtype = dt, .requires_grad = true});
    Tensor y = relu(x);
    std::vector<double> yv = y.to_vector();
    CHECK(std::isnan(yv[0]));
    CHECK(std::vector<double>(yv.begin() + 1, yv.end()) == std::vector<double>{0, 0, 2});
    sum(y).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{1, 0, 0, 1});
  }
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

namespace {

Tensor special_values(DType dtype) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  return from_vector(std::vector<double>{-inf, -2.5, -1, -0.0, 0, 0.5, 1, 3, inf, nan}, {10}, {.dtype = dtype});
}

}  // namespace

TEST_CASE("[cuda] unary ops forward and gradients match the CPU") {
  announce_targets();
  using F = Tensor (*)(const Tensor&);
  const std::vector<std::pair<const char*, F>> any_sign = {
      {"neg", [](const Tensor& x) { return neg(x); }},
      {"abs", [](const Tensor& x) { return abs(x); }},
      {"exp", [](const Tensor& x) { return exp(x); }},
      {"sin", [](const Tensor& x) { return sin(x); }},
      {"cos", [](const Tensor& x) { return cos(x); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); }},
      {"relu", [](const Tensor& x) { return relu(x); }},
      {"gelu", [](const Tensor& x) { return gelu(x); }},
      {"silu", [](const Tensor& x) { return silu(x); }},
      {"square", [](const Tensor& x) { return square(x); }},
      {"gelu tanh", [](const Tensor& x) { return gelu(x, GeluApprox::Tanh); }},
      {"softplus", [](const Tensor& x) { return softplus(x, 2.0, 5.0); }},
      {"clamp", [](const Tensor& x) { return clamp(x, -1.0, 2.0); }},
      {"pow 2", [](const Tensor& x) { return pow(x, 2.0); }},
      {"pow 3", [](const Tensor& x) { return pow(x, 3.0); }},
      {"pow 0", [](const Tensor& x) { return pow(x, 0.0); }},
      {"log1p", [](const Tensor& x) { return log1p(abs(x)); }}};
  const std::vector<std::pair<const char*, F>> positive_only = {
      {"log", [](const Tensor& x) { return log(x); }},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x); }},
      {"pow 0.5", [](const Tensor& x) { return pow(x, 0.5); }},
      {"pow -0.5", [](const Tensor& x) { return pow(x, -0.5); }},
      {"pow -1", [](const Tensor& x) { return pow(x, -1.0); }},
      {"pow -2", [](const Tensor& x) { return pow(x, -2.0); }},
      {"pow 1.7", [](const Tensor& x) { return pow(x, 1.7); }}};
  for (DType dt : {DType::Float64, DType::Float32}) {
    // A (5, 7) transposed view: the op makes it contiguous before the kernel.
    const Tensor x = values({7, 5}, dt), p = positive({7, 5}, dt);
    for (const auto& [name, f] : any_sign)
      check_against_cpu(std::string(name) + " " + std::string(dtype_name(dt)),
                        [f = f](auto& in) { return f(transposed(in[0])); }, {x});
    for (const auto& [name, f] : positive_only)
      check_against_cpu(std::string(name) + " " + std::string(dtype_name(dt)), [f = f](auto& in) { return f(in[0]); }, {p});
    // Forward on inf, NaN, signed zeros and negatives (NaN positions must agree too).
    for (const auto& [name, f] : any_sign)
      check_against_cpu(std::string(name) + " special", [f = f](auto& in) { return f(in[0]); }, {special_values(dt)});
    for (const auto& [name, f] : positive_only)
      check_against_cpu(std::string(name) + " special", [f = f](auto& in) { return f(in[0]); }, {special_values(dt)});
  }
  // int64 neg/abs, and logical_not of every dtype (not differentiable: forward only).
  check_against_cpu(
      "neg int64", [](auto& in) { return neg(in[0]); }, {values({4, 6}, DType::Int64)}, 0);
  check_against_cpu(
      "abs int64", [](auto& in) { return abs(in[0]); }, {values({4, 6}, DType::Int64)}, 0);
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::Bool})
    check_against_cpu(
        std::string("logical_not ") + std::string(dtype_name(dt)), [](auto& in) { return logical_not(in[0]); },
        {values({3, 5}, dt)}, 0);
  check_against_cpu(
      "logical_not -0", [](auto& in) { return logical_not(in[0]); }, {special_values(DType::Float32)}, 0);
  check_against_cpu("unary empty", [](auto& in) { return tanh(in[0]); }, {zeros({0, 3})});
  for_each_device([](const Target& t) {
    CHECK(throws_with([&] { exp(ones({2}, {.dtype = DType::Int64, .device = t.device})); }, {"[exp]", "int64"}));
  });
}

}  // namespace cuda_cases

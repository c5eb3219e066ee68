// bfloat16 as a compute dtype: the elementwise families (binary, unary, add_/mul_), sum,
// dropout and the norms (float32 weight, bias and statistics) read bfloat16, compute in float32 and round once on the
// store, so each result is bit for bit the float32 op on the widened inputs, rounded; bfloat16 with float32 gives
// float32 (PyTorch's promotion) and the bfloat16 input's gradient comes back as bfloat16.
// The [cuda] cases compare the CUDA kernels (their host twins without a GPU) with the CPU.
#include <vector>

#include "harmonic/ops/dropout.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/normalization.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_views.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace bf16_cpu_cases {

using namespace hm;
using namespace hm::test;

constexpr DType bf16 = DType::BFloat16;
constexpr DType f32 = DType::Float32;

// Random bfloat16 values (float64 normals rounded), and their exact float32 widening.
Tensor bvalues(const Shape& shape, uint64_t seed, double scale = 3.0) {
  return values(shape, f32, seed, scale).to(bf16);
}

// The float32 op on the widened inputs, rounded to bfloat16: what a bfloat16 kernel must give.
Tensor widened(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& in) {
  std::vector<Tensor> w;
  for (const Tensor& t : in) w.push_back(t.dtype() == bf16 ? t.to(f32) : t);
  return f(w).to(bf16);
}

TEST_CASE("bfloat16 binary ops: float32 arithmetic rounded once, broadcast and strided") {
  const Tensor a = bvalues({4, 6}, 1), b = bvalues({6}, 2), p = add(abs(bvalues({4, 6}, 3)), 0.25).to(bf16);
  using F = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, F>> ops = {
      {"add", [](auto& x) { return add(x[0], x[1]); }},
      {"sub", [](auto& x) { return sub(x[0], x[1]); }},
      {"mul", [](auto& x) { return mul(x[0], x[1]); }},
      {"div", [](auto& x) { return div(x[0], x[1]); }},
      {"maximum", [](auto& x) { return maximum(x[0], x[1]); }},
      {"minimum", [](auto& x) { return minimum(x[0], x[1]); }},
      {"add scalar", [](auto& x) { return add(x[0], 0.375); }},
      {"rsub", [](auto& x) { return rsub(x[0], 2.0); }},
      {"transposed",
       [](auto& x) {
         return mul(transposed(x[0]), x[0].reshape({6, 4}));
       }},
  };
  for (const auto& [name, f] : ops) {
    INFO(name);
    const Tensor got = f({a, b});
    CHECK(got.dtype() == bf16);
    CHECK(same_values(widened(f, {a, b}), got));
  }
  INFO("pow");
  const F pw = [](auto& x) { return pow(x[0], x[1]); };
  CHECK(same_values(widened(pw, {p, b}), pw({p, b})));
  // A number meets a bfloat16 tensor as a bfloat16 value (0.3 is 0.30078125 there).
  CHECK(same_values(add(a, 0.30078125), add(a, 0.3)));
  const Tensor less = lt(a, b);
  CHECK(less.dtype() == DType::Bool);
  CHECK(same_values(lt(a.to(f32), b.to(f32)), less));
}

TEST_CASE("bfloat16 unary ops: float32 math rounded once, and the fused backward") {
  const Tensor x = bvalues({5, 7}, 4, 2.0), pos = add(abs(bvalues({5, 7}, 5)), 0.1).to(bf16);
  using F = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, F>> ops = {
      {"neg", [](auto& v) { return neg(v[0]); }},
      {"abs", [](auto& v) { return abs(v[0]); }},
      {"exp", [](auto& v) { return exp(v[0]); }},
      {"tanh", [](auto& v) { return tanh(v[0]); }},
      {"sigmoid", [](auto& v) { return sigmoid(v[0]); }},
      {"relu", [](auto& v) { return relu(v[0]); }},
      {"gelu", [](auto& v) { return gelu(v[0]); }},
      {"gelu tanh", [](auto& v) { return gelu(v[0], GeluApprox::Tanh); }},
      {"silu", [](auto& v) { return silu(v[0]); }},
      {"square", [](auto& v) { return square(v[0]); }},
      {"pow 2", [](auto& v) { return pow(v[0], 2.0); }},
      {"clamp", [](auto& v) { return clamp(v[0], -1.0, 0.5); }},
  };
  for (const auto& [name, f] : ops) {
    INFO(name);
    const Tensor got = f({x});
    CHECK(got.dtype() == bf16);
    CHECK(same_values(widened(f, {x}), got));
  }
  const std::vector<std::pair<const char*, F>> positive_ops = {
      {"log", [](auto& v) { return log(v[0]); }},
      {"sqrt", [](auto& v) { return sqrt(v[0]); }},
      {"rsqrt", [](auto& v) { return rsqrt(v[0]); }},
      {"pow 1.7", [](auto& v) { return pow(v[0], 1.7); }},
  };
  for (const auto& [name, f] : positive_ops) {
    INFO(name);
    CHECK(same_values(widened(f, {pos}), f({pos})));
  }
  // Backward: the gradient is bfloat16, op'(x) g computed in float32 from the bfloat16 x and g.
  for (const auto& [name, f] : ops) {
    INFO(name << " backward");
    Tensor xl = x.detach().requires_grad_(true);
    const Tensor g = bvalues({5, 7}, 6);
    f({xl}).backward(g);
    REQUIRE(xl.grad().defined());
    CHECK(xl.grad().dtype() == bf16);
    Tensor x32 = x.to(f32).requires_grad_(true);
    Tensor y32 = f({x32});
    // The saved output (tanh, exp, sigmoid, relu) is the rounded bfloat16 one, as in PyTorch.
    y32.backward(g.to(f32));
    CHECK(allclose(x32.grad().to(f32), xl.grad().to(f32), 2e-2, 2e-2));
  }
}

TEST_CASE("bfloat16 with float32 computes and returns float32, and the bfloat16 side's gradient is bfloat16") {
  const Tensor a = bvalues({3, 5}, 7), b = values({3, 5}, f32, 8);
  for (bool swap : {false, true}) {
    INFO("bfloat16 " << (swap ? "second" : "first"));
    Tensor al = a.detach().requires_grad_(true), bl = b.detach().requires_grad_(true);
    Tensor y = swap ? mul(bl, al) : mul(al, bl);
    CHECK(y.dtype() == f32);
    CHECK(same_values(mul(a.to(f32), b), y));
    const Tensor g = values({3, 5}, f32, 9);
    y.backward(g);
    CHECK(al.grad().dtype() == bf16);
    CHECK(bl.grad().dtype() == f32);
    CHECK(same_values(mul(g, b).to(bf16), al.grad()));
    CHECK(same_values(mul(g, a.to(f32)), bl.grad()));
  }
  // A float32 residual stream plus a bfloat16 branch, broadcast: y = r + h with h (5,).
  Tensor r = values({3, 5}, f32, 10).requires_grad_(true), h = bvalues({5}, 11).requires_grad_(true);
  Tensor y = add(r, h);
  CHECK(y.dtype() == f32);
  sum(y).backward();
  CHECK(h.grad().dtype() == bf16);
  CHECK(same_values(full({5}, 3.0, {.dtype = bf16}), h.grad()));
  for (const char* op : {"maximum", "pow"}) {
    INFO(op);
    Tensor p = add(abs(bvalues({4}, 12)), 0.5).to(bf16).requires_grad_(true),
           q = values({4}, f32, 13).requires_grad_(true);
    Tensor z = std::string(op) == "pow" ? pow(p, q) : maximum(p, q);
    sum(z).backward();
    CHECK(p.grad().dtype() == bf16);
    Tensor p32 = p.detach().to(f32).requires_grad_(true), q32 = q.detach().requires_grad_(true);
    sum(std::string(op) == "pow" ? pow(p32, q32) : maximum(p32, q32)).backward();
    CHECK(same_values(p32.grad().to(bf16), p.grad()));
    CHECK(same_values(q32.grad(), q.grad()));
  }
}

TEST_CASE("bfloat16 sums accumulate in float32 and round once") {
  // 4096 ones in bfloat16 sum to 4096 (a bfloat16 accumulator would stop at 256).
  CHECK(sum(ones({4096}, {.dtype = bf16})).to(f32).item<double>() == 4096.0);
  const Tensor x = bvalues({6, 33, 5}, 14);
  for (const Dims& dims : {Dims{0}, Dims{1}, Dims{2}, Dims{0, 2}, Dims{}}) {
    const Tensor got = sum(x, dims);
    CHECK(got.dtype() == bf16);
    CHECK(same_values(sum(x.to(f32), dims).to(bf16), got));
  }
  Tensor xl = x.detach().requires_grad_(true);
  mean(xl).backward();
  CHECK(xl.grad().dtype() == bf16);
}

TEST_CASE("bfloat16 add_ and mul_ in place compute in float32") {
  Tensor x = bvalues({4, 6}, 15), y = bvalues({6}, 16);
  Tensor x32 = x.to(f32);
  add_(x, y, 0.5);
  mul_(x, -1.5);
  add_(x32, y.to(f32), 0.5);
  x32 = x32.to(bf16).to(f32);  // each in-place step rounds
  mul_(x32, -1.5);
  CHECK(same_values(x32.to(bf16), x));
}

TEST_CASE("bfloat16 dropout keeps float32's mask and rounds its product") {
  const Tensor x = bvalues({8, 40}, 17), r = bvalues({8, 40}, 18);
  Generator g1(5), g2(5), g3(6), g4(6);
  const Tensor d = dropout(x, 0.3, true, &g1);
  CHECK(d.dtype() == bf16);
  CHECK(same_values(dropout(x.to(f32), 0.3, true, &g2).to(bf16), d));
  const Tensor da = dropout_add(x, r, 0.3, true, &g3);
  CHECK(same_values(detail::dropout_add_composed(x, r, 0.3, true, &g4), da));
  Tensor xl = x.detach().requires_grad_(true);
  Generator g5(7);
  sum(dropout(xl, 0.5, true, &g5)).backward();
  CHECK(xl.grad().dtype() == bf16);
}

TEST_CASE("bfloat16 layer_norm and rms_norm: float32 statistics and parameters, rounded rows") {
  const Tensor x = bvalues({6, 40}, 27), r = bvalues({6, 40}, 28);
  const Tensor w = values({40}, f32, 29, 1.0), b = values({40}, f32, 30, 1.0);
  // Each output is the float32 op on the widened rows, rounded once.
  CHECK(same_values(layer_norm(x.to(f32), {40}, w, b).to(bf16), layer_norm(x, {40}, w, b)));
  CHECK(same_values(rms_norm(x.to(f32), w).to(bf16), rms_norm(x, w)));
  auto [sum, y] = add_layer_norm(x, r, {40}, w, b);
  CHECK(same_values(add(x, r), sum));
  CHECK(same_values(layer_norm(add(x, r).to(f32), {40}, w, b).to(bf16), y));
  auto [rsum, ry] = add_rms_norm(x, r, w);
  CHECK(same_values(add(x, r), rsum));
  CHECK(same_values(rms_norm(add(x, r).to(f32), w).to(bf16), ry));

  // Gradients: dx in bfloat16, dweight/dbias in float32 (the master weights' dtype), each the
  // float32 backward of the widened x and g, rounded.
  const Tensor g = bvalues({6, 40}, 31);
  Tensor xl = x.detach().requires_grad_(true), wl = w.detach().requires_grad_(true),
         bl = b.detach().requires_grad_(true);
  layer_norm(xl, {40}, wl, bl).backward(g);
  CHECK(xl.grad().dtype() == bf16);
  CHECK(wl.grad().dtype() == f32);
  Tensor x32 = x.to(f32).requires_grad_(true), w32 = w.detach().requires_grad_(true),
         b32 = b.detach().requires_grad_(true);
  layer_norm(x32, {40}, w32, b32).backward(g.to(f32));
  CHECK(same_values(x32.grad().to(bf16), xl.grad()));
  CHECK(same_values(w32.grad(), wl.grad()));
  CHECK(same_values(b32.grad(), bl.grad()));
  Tensor xr = x.detach().requires_grad_(true), wr = w.detach().requires_grad_(true);
  rms_norm(xr, wr).backward(g);
  Tensor xr32 = x.to(f32).requires_grad_(true), wr32 = w.detach().requires_grad_(true);
  rms_norm(xr32, wr32).backward(g.to(f32));
  CHECK(same_values(xr32.grad().to(bf16), xr.grad()));
  CHECK(same_values(wr32.grad(), wr.grad()));

  // A bfloat16 model's own bfloat16 weight: normalised in float32, its gradient rounded back.
  Tensor wb = w.to(bf16).requires_grad_(true);
  Tensor yb = layer_norm(x, {40}, wb);
  CHECK(same_values(layer_norm(x.to(f32), {40}, w.to(bf16).to(f32)).to(bf16), yb));
  yb.backward(g);
  CHECK(wb.grad().dtype() == bf16);
  CHECK_THROWS_WITH_AS(layer_norm(x, {40}, values({40}, DType::Float64, 32)), doctest::Contains("does not match"),
                       Error);
}

TEST_CASE("a bfloat16 branch on a float32 residual: the fused residual ops match add then the op") {
  const Tensor x = values({6, 40}, f32, 37), r = bvalues({6, 40}, 38);
  const Tensor w = values({40}, f32, 39, 1.0), b = values({40}, f32, 40, 1.0);
  for (bool swap : {false, true}) {  // the sum is symmetric: a bfloat16 x with a float32 r too
    INFO("bfloat16 " << (swap ? "x" : "r"));
    const Tensor& first = swap ? r : x;
    const Tensor& second = swap ? x : r;
    auto [sum, y] = add_layer_norm(first, second, {40}, w, b);
    CHECK(sum.dtype() == f32);
    CHECK(same_values(add(x, r), sum));
    CHECK(same_values(layer_norm(add(x, r), {40}, w, b), y));
    auto [rsum, ry] = add_rms_norm(first, second, w);
    CHECK(same_values(add(x, r), rsum));
    CHECK(same_values(rms_norm(add(x, r), w), ry));
  }
  Tensor rl = r.detach().requires_grad_(true), xl = x.detach().requires_grad_(true);
  auto [total, normed] = add_layer_norm(xl, rl, {40}, w, b);
  sum(add(total, normed)).backward();
  CHECK(rl.grad().dtype() == bf16);
  CHECK(xl.grad().dtype() == f32);
  CHECK(same_values(xl.grad().to(bf16), rl.grad()));  // one gradient, rounded for the bfloat16 side

  Generator g1(8), g2(8);
  const Tensor da = dropout_add(x, r, 0.3, true, &g1);
  CHECK(da.dtype() == f32);
  CHECK(same_values(add(x, dropout(r, 0.3, true, &g2)), da));
  Tensor rd = r.detach().requires_grad_(true);
  Generator g3(9);
  sum(dropout_add(x, rd, 0.3, true, &g3)).backward();
  CHECK(rd.grad().dtype() == bf16);
}

TEST_CASE("bfloat16: the dtypes that still need a conversion say so") {
  const Tensor a = bvalues({3}, 19);
  CHECK_THROWS_WITH_AS(add(a, values({3}, DType::Float64, 20)), doctest::Contains("dtype mismatch"), Error);
  CHECK_THROWS_WITH_AS(add(a, ones({3}, {.dtype = DType::Int64})), doctest::Contains("dtype mismatch"), Error);
  CHECK_THROWS_WITH_AS(dropout(ones({3}, {.dtype = DType::Int64}), 0.5), doctest::Contains("bfloat16"), Error);
}

}  // namespace bf16_cpu_cases

namespace bf16_cuda_cases {

using namespace hm;
using namespace hm::test;

constexpr DType bf16 = DType::BFloat16;
constexpr DType f32 = DType::Float32;

// Outputs widened to float32 so the harness's upstream gradient is a float32 draw; the
// conversion's backward hands each op its bfloat16 gradient.
TEST_CASE("[cuda] bfloat16 elementwise kernels, sums and dropout match the CPU") {
  announce_targets();
  const Tensor a = values({3, 4, 5}, f32, 21).to(bf16), b = values({4, 1}, f32, 22).to(bf16);
  const Tensor c = values({4, 1}, f32, 23), p = positive({3, 4, 5}, f32, 24).to(bf16);
  check_against_cpu("add", [](auto& x) { return add(x[0], x[1]).to(f32); }, {a, b});
  check_against_cpu("mul", [](auto& x) { return mul(x[0], x[1]).to(f32); }, {a, b});
  check_against_cpu("div", [](auto& x) { return div(x[0], x[1]).to(f32); }, {a, b});
  check_against_cpu("maximum", [](auto& x) { return maximum(x[0], x[1]).to(f32); }, {a, b});
  check_against_cpu(
      "pow", [](auto& x) { return pow(x[0], x[1]).to(f32); }, {p, b}, 1e-5);
  check_against_cpu("bf16 + f32", [](auto& x) { return add(x[0], x[1]); }, {a, c});
  check_against_cpu("f32 * bf16", [](auto& x) { return mul(x[1], x[0]); }, {a, c});
  check_against_cpu(
      "gelu", [](auto& x) { return gelu(x[0]).to(f32); }, {a}, 1e-5);
  check_against_cpu(
      "tanh", [](auto& x) { return tanh(x[0]).to(f32); }, {a}, 1e-5);
  check_against_cpu(
      "exp", [](auto& x) { return exp(x[0]).to(f32); }, {a}, 1e-5);
  check_against_cpu(
      "sqrt", [](auto& x) { return sqrt(x[0]).to(f32); }, {p}, 1e-5);
  check_against_cpu("relu", [](auto& x) { return relu(x[0]).to(f32); }, {a});
  check_against_cpu("sum rows", [](auto& x) { return sum(x[0], {2}).to(f32); }, {a});
  check_against_cpu("sum columns", [](auto& x) { return sum(x[0], {0, 1}).to(f32); }, {a});
  check_against_cpu("sum long", [](auto& x) { return sum(x[0]).to(f32); }, {values({70000}, f32, 25).to(bf16)});
  check_against_cpu("dropout",
                    [](auto& x) {
                      Generator g(3);
                      return dropout(x[0], 0.25, true, &g).to(f32);
                    },
                    {a});
  check_against_cpu("dropout_add",
                    [](auto& x) {
                      Generator g(4);
                      return dropout_add(x[0], x[1], 0.25, true, &g).to(f32);
                    },
                    {a, values({3, 4, 5}, f32, 26).to(bf16)});
  for_each_device([&](const Target& t) {
    INFO(t.name);
    auto run = [&](Device dev) {
      Tensor x = a.clone().to(dev);  // a fresh copy: add_ writes into it
      add_(x, expand(b, {3, 4, 5}).contiguous().to(dev), -0.5);
      mul_(x, 3.0);
      return x.to(Device::cpu());
    };
    const Tensor ref = on_cpu([&] { return run(Device::cpu()); });
    CHECK(same_values(ref, run(t.device)));
  });
}

TEST_CASE("[cuda] bfloat16 layer_norm, rms_norm and their residual forms match the CPU") {
  announce_targets();
  for (int64_t d : {40, 1100}) {  // a warp per row, and a block per row
    INFO("D " << d);
    const Tensor x = values({5, d}, f32, 33).to(bf16), r = values({5, d}, f32, 34).to(bf16);
    const Tensor w = values({d}, f32, 35, 1.0), b = values({d}, f32, 36, 1.0);
    // Row sums in another order may move a rounded element by one bfloat16 step.
    constexpr double tol = 1e-5;
    check_against_cpu(
        "layer_norm", [d](auto& v) { return layer_norm(v[0], {d}, v[1], v[2]).to(f32); }, {x, w, b}, tol);
    check_against_cpu(
        "rms_norm", [](auto& v) { return rms_norm(v[0], v[1]).to(f32); }, {x, w}, tol);
    check_against_cpu(
        "add_layer_norm",
        [d](auto& v) {
          auto [s, y] = add_layer_norm(v[0], v[1], {d}, v[2], v[3]);
          return add(s, y).to(f32);
        },
        {x, r, w, b}, tol);
    check_against_cpu(
        "add_rms_norm",
        [](auto& v) {
          auto [s, y] = add_rms_norm(v[0], v[1], v[2]);
          return add(s, y).to(f32);
        },
        {x, r, w}, tol);
  }
}

TEST_CASE("[cuda] a bfloat16 branch on a float32 residual: fused add_layer_norm, add_rms_norm, dropout_add") {
  announce_targets();
  const Tensor x = values({5, 40}, f32, 41), r = values({5, 40}, f32, 42).to(bf16);
  const Tensor w = values({40}, f32, 43, 1.0), b = values({40}, f32, 44, 1.0);
  check_against_cpu(
      "add_layer_norm",
      [](auto& v) {
        auto [s, y] = add_layer_norm(v[0], v[1], {40}, v[2], v[3]);
        return add(s, y);
      },
      {x, r, w, b}, 1e-10);
  check_against_cpu(
      "add_rms_norm",
      [](auto& v) {
        auto [s, y] = add_rms_norm(v[0], v[1], v[2]);
        return add(s, y);
      },
      {x, r, w}, 1e-10);
  check_against_cpu("dropout_add",
                    [](auto& v) {
                      Generator g(5);
                      return dropout_add(v[0], v[1], 0.25, true, &g);
                    },
                    {x, r});
}

}  // namespace bf16_cuda_cases

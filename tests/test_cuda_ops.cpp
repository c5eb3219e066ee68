// CUDA kernels of the unary, where/in-place, reduction, shape and indexing families against
// the CPU: every "[cuda]" case runs on each target of tests/device_harness.h (a GPU when
// present; in CUDA builds always the kernels' host twins with 32- and 64-bit index math),
// comparing the forward and every input gradient by normalised error (1e-7 unless noted).
// Without a GPU they print "skipped: no CUDA device" and still check the host twins.
// On a GPU machine: harmonic_tests -tc='*cuda*'  (or ctest -R cuda).
#include <algorithm>
#include <limits>

#include "tests/device_harness.h"

using namespace hm;
using namespace hm::test;

namespace {

using Inputs = std::vector<Tensor>;

Tensor values(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 7, double scale = 3.0) {
  Generator gen(seed);
  Tensor x = mul(randn(shape, {.dtype = DType::Float64}, &gen), scale);
  return dtype == DType::Bool ? x.to(DType::Int64).to(dtype) : x.to(dtype);
}

// Integer-valued floats: many exact ties for max/min/maximum.
Tensor ties(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 11) {
  return values(shape, DType::Int64, seed, 1.5).to(dtype);
}

Tensor positive(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 5) {
  return add(abs(values(shape, DType::Float64, seed, 2.0)), 0.1).to(dtype);
}

// (rows, cols) transposed view of a contiguous (cols, rows) tensor: a non-contiguous input.
Tensor transposed(const Tensor& x) { return view(x, {x.shape()[1], x.shape()[0]}, {x.strides()[1], x.strides()[0]}); }

Tensor special_values(DType dtype) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  return from_vector(std::vector<double>{-inf, -2.5, -1, -0.0, 0, 0.5, 1, 3, inf, nan}, {10}, {.dtype = dtype});
}

Tensor index_tensor(const std::vector<double>& v, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return from_vector(v, shape, {.dtype = DType::Int64});
}

// int64 indices of `shape` in [0, size): a fixed pattern with repeats.
Tensor pattern(const Shape& shape, int64_t size, int64_t salt = 0) {
  std::vector<double> v(static_cast<size_t>(numel_of(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((static_cast<int64_t>(i) * 7 + 3 + salt) % size);
  return index_tensor(v, shape);
}

}  // namespace

// -- unary ---------------------------------------------------------------------------------------

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

// -- pow / maximum / minimum backward, where, masked_fill ---------------------------------------

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

// -- reductions ----------------------------------------------------------------------------------

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

TEST_CASE("[cuda] var and std match the CPU") {
  announce_targets();
  const Tensor x = values({4, 5, 6});
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {0, 2}};
  for (const auto& dims : dim_sets)
    for (int64_t correction : {0, 1}) {
      check_against_cpu("var", [&](auto& in) { return var(in[0], dims, correction); }, {x});
      check_against_cpu("std keepdim", [&](auto& in) { return hm::std(in[0], dims, correction, true); }, {x});
    }
  // float32 with a large mean (accumulated in double like the CPU), long rows, few columns.
  check_against_cpu(
      "var float32 offset", [](auto& in) { return var(add(in[0], 1e4), {1}); }, {values({3, 2000}, DType::Float32)},
      1e-6);
  check_against_cpu("std long rows", [](auto& in) { return hm::std(in[0], {1}); }, {values({2, 10000})});
  check_against_cpu("std few columns", [](auto& in) { return hm::std(in[0], {0}); }, {values({1000, 3})});
  // Few outputs over a long r: both passes split over the grid.
  check_against_cpu("var split", [](auto& in) { return var(in[0]); }, {values({40000})});
  check_against_cpu("std split columns", [](auto& in) { return hm::std(in[0], {0}); },
                    {values({5000, 3}, DType::Float32)}, 1e-6);
  check_against_cpu("std permuted", [](auto& in) { return hm::std(transposed(in[0]), {0}); }, {values({6, 7})});
  // Constant slices: std = 0 has a zero (not NaN) gradient; r <= correction gives inf/NaN.
  check_against_cpu("std constant", [](auto& in) { return hm::std(in[0], {1}); }, {ones({3, 4})});
  check_against_cpu("var r = 1", [](auto& in) { return var(in[0], {1}); }, {values({3, 1})});
}

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

TEST_CASE("[cuda] cumsum matches the CPU") {
  announce_targets();
  const Tensor x = values({3, 4, 5});
  for (int64_t d : {0, 1, 2, -1}) check_against_cpu("cumsum", [&](auto& in) { return cumsum(in[0], d); }, {x});
  check_against_cpu("cumsum permuted", [](auto& in) { return cumsum(transposed(in[0]), 1); }, {values({6, 5})});
  // Long rows take the block scan over several tiles (its gradient scans in reverse).
  check_against_cpu("cumsum long rows", [](auto& in) { return cumsum(in[0], 1); }, {values({3, 1000})});
  check_against_cpu(
      "cumsum long rows float32", [](auto& in) { return cumsum(in[0], 0); }, {values({700}, DType::Float32)}, 1e-6);
  check_against_cpu(
      "cumsum int64", [](auto& in) { return cumsum(in[0], 1); }, {values({2, 600}, DType::Int64)}, 0);
  check_against_cpu(
      "cumsum bool", [](auto& in) { return cumsum(in[0], 0); }, {values({300, 2}, DType::Bool)}, 0);
  check_against_cpu("cumsum 0-d", [](auto& in) { return cumsum(in[0], 0); }, {values({})});
  check_against_cpu("cumsum empty", [](auto& in) { return cumsum(in[0], 1); }, {zeros({0, 4})});
}

// -- shape ---------------------------------------------------------------------------------------

TEST_CASE("[cuda] flip, tril and triu match the CPU") {
  announce_targets();
  const Tensor x = values({3, 4, 5, 2});
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {3}, {1, 2}, {0, 1}, {0, 2}, {0, 1, 2, 3}, {-1, 1}};
  for (const auto& dims : dim_sets) check_against_cpu("flip", [&](auto& in) { return flip(in[0], dims); }, {x});
  check_against_cpu("flip transposed", [](auto& in) { return flip(transposed(in[0]), {1}); }, {values({4, 6})});
  for (DType dt : {DType::Float32, DType::Int64, DType::Bool})
    check_against_cpu(
        std::string("flip ") + std::string(dtype_name(dt)),
        [](auto& in) {
          return flip(in[0], {0, 2});
        },
        {values({3, 2, 7}, dt)}, 0);
  check_against_cpu("flip 0-d", [](auto& in) { return flip(in[0], {}); }, {values({})});
  for (int64_t diagonal : {-2, -1, 0, 1, 3, 9}) {
    check_against_cpu("tril", [&](auto& in) { return tril(in[0], diagonal); }, {values({2, 4, 6})});
    check_against_cpu("triu", [&](auto& in) { return triu(in[0], diagonal); }, {values({6, 4})});
  }
  check_against_cpu("triu transposed", [](auto& in) { return triu(transposed(in[0]), 1); }, {values({5, 3})});
  check_against_cpu(
      "tril int64", [](auto& in) { return tril(in[0]); }, {values({3, 3}, DType::Int64)}, 0);
  check_against_cpu(
      "triu bool", [](auto& in) { return triu(in[0], -1); }, {values({2, 3, 3}, DType::Bool)}, 0);
}

// -- indexing ------------------------------------------------------------------------------------

TEST_CASE("[cuda] index_select and index_add match the CPU") {
  announce_targets();
  const Tensor x = values({4, 5, 3});
  for (int64_t d : {0, 1, 2}) {
    const Tensor idx = pattern({6}, x.shape()[d], d);  // 6 > size: duplicates accumulate in backward
    Shape src_shape = x.shape();
    src_shape[d] = 6;
    check_against_cpu("index_select", [&](auto& in) { return index_select(in[0], d, in[1]); }, {x, idx});
    check_against_cpu("index_add", [&](auto& in) { return index_add(in[0], d, in[1], in[2]); },
                      {x, idx, values(src_shape, DType::Float64, 4)});
  }
  check_against_cpu("index_select transposed", [](auto& in) { return index_select(transposed(in[0]), 1, in[1]); },
                    {values({7, 3}, DType::Float32), pattern({5}, 7)});
  check_against_cpu("index_select strided index",
                    [](auto& in) { return index_select(in[0], 0, view(in[1], {3}, {2})); }, {x, pattern({6}, 4)});
  check_against_cpu(
      "index_select int64", [](auto& in) { return index_select(in[0], 1, in[1]); },
      {values({3, 8}, DType::Int64), pattern({10}, 8)}, 0);
  check_against_cpu(
      "index_add int64", [](auto& in) { return index_add(in[0], 0, in[1], in[2]); },
      {values({5, 2}, DType::Int64), pattern({9}, 5), values({9, 2}, DType::Int64, 3)}, 0);
  check_against_cpu("index_select empty", [](auto& in) { return index_select(in[0], 0, in[1]); },
                    {x, index_tensor({}, {0})});
}

TEST_CASE("[cuda] gather and scatter_add match the CPU") {
  announce_targets();
  const Tensor x = values({4, 5, 3});
  for (int64_t d : {0, 1, 2}) {
    // index smaller than x in the other dims (gather allows it) and longer along d.
    Shape ishape{3, 4, 2};
    ishape[d] = 7;
    const Tensor idx = pattern(ishape, x.shape()[d], d);
    check_against_cpu("gather", [&](auto& in) { return gather(in[0], d, in[1]); }, {x, idx});
    Shape src_shape = ishape;
    src_shape[0] += 1;  // src may be larger than the index: its extra elements get no gradient
    check_against_cpu("scatter_add", [&](auto& in) { return scatter_add(in[0], d, in[1], in[2]); },
                      {x, idx, values(src_shape, DType::Float64, 5)});
  }
  check_against_cpu("gather float32 transposed", [](auto& in) { return gather(transposed(in[0]), 1, in[1]); },
                    {values({6, 4}, DType::Float32), pattern({4, 9}, 6)});
  // A broadcast (stride 0) index and a transposed src.
  check_against_cpu("scatter_add broadcast index",
                    [](auto& in) {
                      return scatter_add(in[0], 1, view(in[1], {3, 4}, {0, 1}), transposed(in[2]));
                    },
                    {values({3, 6}), pattern({4}, 6), values({4, 3})});
  check_against_cpu(
      "gather int64", [](auto& in) { return gather(in[0], 0, in[1]); },
      {values({5, 3}, DType::Int64), pattern({8, 3}, 5)}, 0);
  check_against_cpu(
      "gather bool", [](auto& in) { return gather(in[0], 1, in[1]); },
      {values({2, 5}, DType::Bool), pattern({2, 6}, 5)}, 0);
  check_against_cpu(
      "scatter_add int64", [](auto& in) { return scatter_add(in[0], 0, in[1], in[2]); },
      {values({4, 3}, DType::Int64), pattern({9, 3}, 4), values({9, 3}, DType::Int64, 2)}, 0);
  // Many duplicates into few slots (atomics on the device): float32 sums in another order there.
  check_against_cpu(
      "scatter_add many duplicates", [](auto& in) { return scatter_add(in[0], 0, in[1], in[2]); },
      {values({3, 2}, DType::Float32), pattern({3000, 2}, 3), values({3000, 2}, DType::Float32, 8)}, 1e-10);
}

TEST_CASE("[cuda] one_hot matches the CPU") {
  announce_targets();
  for (DType dt : {DType::Int64, DType::Float32, DType::Float64, DType::Bool})
    check_against_cpu(
        std::string("one_hot ") + std::string(dtype_name(dt)), [dt](auto& in) { return one_hot(in[0], 6, dt); },
        {pattern({3, 4}, 6)}, 0);
  check_against_cpu(
      "one_hot 0-d", [](auto& in) { return one_hot(in[0], 3); }, {index_tensor({2}, {})}, 0);
  check_against_cpu(
      "one_hot transposed", [](auto& in) { return one_hot(transposed(in[0]), 5); }, {pattern({4, 3}, 5)}, 0);
}

TEST_CASE("[cuda] bad indices raise the CPU's errors before touching memory") {
  announce_targets();
  for_each_device([](const Target& t) {
    INFO(t.name);
    Tensor x = values({4, 5}).to(t.device);
    Tensor bad = index_tensor({1, 7, 2, -1}).to(t.device);  // 7 is reported: the first bad element
    CHECK(throws_with([&] { index_select(x, 1, bad); },
                      {"[index_select]", "index 7 is out of range for dim 1 of size 5", "[0, 5)"}));
    CHECK(throws_with(
        [&] {
          index_add(x, 0, bad, values({4, 5}).to(t.device));
        },
        {"[index_add]", "index 7 is out of range for dim 0 of size 4"}));
    Tensor bad2 = index_tensor({0, 1, -3, 2, 0, 9}, {2, 3}).to(t.device);
    CHECK(throws_with([&] { gather(x, 1, bad2); }, {"[gather]", "index -3 is out of range for dim 1 of size 5"}));
    CHECK(throws_with(
        [&] {
          scatter_add(x, 0, bad2, values({2, 3}).to(t.device));
        },
        {"[scatter_add]", "index -3 is out of range for dim 0 of size 4"}));
    CHECK(throws_with(
        [&] {
          one_hot(index_tensor({0, 3, 5, 1}).to(t.device), 4);
        },
        {"[one_hot]", "class value 5 (at flat position 2) is out of range [0, 4)"}));
    // x itself is untouched (the ops write into copies, and only after the check).
    CHECK(same_values(values({4, 5}), x.to(Device::cpu())));
  });
}

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("cuda ops: every kernel of these families has a host twin") {
  auto names = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k :
       {"unary", "unary_backward", "binary_backward", "where", "add_", "mul_", "reduce_extrema", "moments", "logsumexp",
        "norm", "reduce_grad", "cumsum", "flip", "triangle", "gather", "scatter_add", "index_add", "one_hot"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), k) != names.end(), k);
}
#endif

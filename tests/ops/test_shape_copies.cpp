// The data-moving shape ops: cat/stack/split/chunk, flip, pad, tril/triu.
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

TEST_CASE("cat, stack, split, chunk") {
  Tensor a = iota({2, 3}), b = add(iota({2, 1}), 100.0);
  Tensor c = cat({a, b}, 1);
  CHECK(c.shape() == Shape{2, 4});
  CHECK(allclose(c, {0, 1, 2, 100, 3, 4, 5, 101}));
  CHECK(allclose(cat({transpose(a, 0, 1), reshape(b, {1, 2})}, 0), {0, 3, 1, 4, 2, 5, 100, 101}));
  CHECK(cat({a, zeros({0, 3}, {.dtype = DType::Float64})}).shape() == Shape{2, 3});
  auto mismatched = [&] { cat({a, b}, 0); };
  CHECK(throws_with(mismatched, {"[cat]", "dim 0", "tensor 0 has shape (2, 3)", "tensor 1 has shape (2, 1)"}));
  CHECK(throws_with([&] { cat({a, a, iota({3})}, 0); }, {"[cat]", "tensor 2", "(3,)"}));
  CHECK(throws_with([&] { cat({a, a.to(DType::Float32)}); }, {"[cat]", "tensor 1", "float32", "float64"}));
  CHECK(throws_with([&] { cat({a}, 2); }, {"[cat]", "dim 2"}));
  CHECK(throws_with([&] { cat({}); }, {"[cat]", "non-empty"}));

  Tensor s = stack({a, add(a, 10.0)}, 1);  // (2, 2, 3)
  CHECK(s.shape() == Shape{2, 2, 3});
  CHECK(allclose(s, {0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}));
  CHECK(stack({a, a}, -1).shape() == Shape{2, 3, 2});
  CHECK(throws_with([&] { stack({a, b}); }, {"[stack]", "tensor 1", "(2, 1)"}));

  Tensor x = iota({5, 2});
  auto parts = split(x, 2);
  REQUIRE(parts.size() == 3);
  CHECK(parts[2].shape() == Shape{1, 2});
  CHECK(allclose(parts[1], {4, 5, 6, 7}));
  CHECK(shares_storage(parts[1], x));
  auto sized = split(x, std::vector<int64_t>{1, 4});
  CHECK(sized[1].shape() == Shape{4, 2});
  CHECK(throws_with([&] { split(x, std::vector<int64_t>{2, 2}); }, {"[split]", "sum to 4", "size 5"}));
  CHECK(throws_with([&] { split(x, 0); }, {"[split]", "positive"}));
  // torch: [t.shape for t in torch.empty(5).chunk(3)] -> [2, 2, 1];
  // empty(6).chunk(4) -> [2, 2, 2]; empty(0).chunk(3) -> three empty tensors
  auto ch = chunk(iota({5}), 3);
  REQUIRE(ch.size() == 3);
  CHECK(ch[2].numel() == 1);
  CHECK(chunk(iota({6}), 4).size() == 3);
  CHECK(chunk(zeros({0}), 3).size() == 3);
  CHECK(throws_with([&] { chunk(x, 0); }, {"[chunk]"}));
}

TEST_CASE("flip, pad, tril, triu values") {
  Tensor x = iota({2, 3, 4});
  // torch.arange(24.).reshape(2,3,4).flip([0,2]).flatten()
  CHECK(allclose(flip(x, {0, 2}),
                 {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
  // .flip([1])
  CHECK(
      allclose(flip(x, {-2}), {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15}));
  CHECK(allclose(flip(transpose(iota({2, 3}), 0, 1), {0, 1}), {5, 2, 4, 1, 3, 0}));
  CHECK(flip(arange(5), {0}).to_vector_as<int64_t>() == std::vector<int64_t>{4, 3, 2, 1, 0});
  CHECK(throws_with([&] { flip(x, {0, -3}); }, {"[flip]", "repeated"}));

  Tensor a = add(iota({2, 3}), 1.0);
  // torch: F.pad(a, (1, 2)) and F.pad(a, (-1, 1, 1, 0), value=9) for a = arange(1., 7.).reshape(2, 3)
  CHECK(allclose(pad(a, {1, 2}), {0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0}));
  Tensor p = pad(a, {-1, 1, 1, 0}, 9);
  CHECK(p.shape() == Shape{3, 3});
  CHECK(allclose(p, {9, 9, 9, 2, 3, 9, 5, 6, 9}));
  CHECK(pad(arange(3), {2, 0}, 7).to_vector_as<int64_t>() == std::vector<int64_t>{7, 7, 0, 1, 2});
  CHECK(throws_with([&] { pad(a, {1}); }, {"[pad]"}));
  CHECK(throws_with([&] { pad(a, {1, 1, 1, 1, 1, 1}); }, {"[pad]", "(2, 3)"}));
  CHECK(throws_with([&] { pad(a, {-2, -2}); }, {"[pad]", "negative"}));

  Tensor m = add(iota({3, 4}), 1.0);
  // torch: m.tril(), m.tril(-1), m.triu(1), m.triu(-1) for m = arange(1., 13.).reshape(3, 4)
  CHECK(allclose(tril(m), {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  CHECK(allclose(tril(m, -1), {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  CHECK(allclose(triu(m, 1), {0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}));
  CHECK(allclose(triu(m, -1), {1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}));
  CHECK(allclose(select(tril(stack({m, m})), 0, 1), {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  CHECK(allclose(triu(transpose(m, 0, 1)), {1, 5, 9, 0, 6, 10, 0, 0, 11, 0, 0, 0}));
  CHECK(throws_with([&] { tril(iota({3})); }, {"[tril]", "at least 2 dims", "(3,)"}));
}

TEST_CASE("shape ops: large inputs take the parallel paths") {
  Tensor x = iota({64, 33, 40});
  Tensor f = flip(x, {1});
  CHECK(allclose(select(select(f, 0, 5), 0, 0), select(select(x, 0, 5), 0, 32)));
  Tensor c = cat({x, x}, 2);
  CHECK(allclose(narrow(c, 2, 40, 40), x));
  Tensor t = tril(x, 3);
  CHECK(sum(t).item<double>() == sum(mul(x, tril(ones({33, 40}, {.dtype = DType::Float64}), 3))).item<double>());
}

TEST_CASE("gradcheck: data-moving shape ops") {
  Tensor a = leaf64({2, 3}, 3), b = leaf64({2, 2}, 4), c = leaf64({3, 2}, 5);
  auto g = [](auto f, const Inputs& in) { return gradcheck(f, in); };
  CHECK(g([](const Inputs& v) { return cat({v[0], v[1], transpose(v[2], 0, 1)}, 1); }, {a, b, c}));
  CHECK(g([](const Inputs& v) { return cat({v[0], v[0]}, 0); }, {a}));
  CHECK(g([](const Inputs& v) { return stack({v[0], transpose(v[1], 0, 1)}, 1); }, {a, c}));
  CHECK(g([](const Inputs& v) { return mul(split(v[0], 2, 1)[1], chunk(v[1], 2, 1)[0]); }, {a, b}));
  CHECK(g([](const Inputs& v) { return flip(transpose(v[0], 0, 1), {0, 1}); }, {a}));
  CHECK(g([](const Inputs& v) { return flip(v[0], {1}); }, {a}));
  CHECK(g([](const Inputs& v) { return pad(v[0], {1, 2, 0, 1}, 3.0); }, {a}));
  CHECK(g([](const Inputs& v) { return pad(transpose(v[0], 0, 1), {-1, 1, 1, -1}); }, {a}));
  Tensor m = leaf64({2, 3, 4}, 6);
  CHECK(g([](const Inputs& v) { return tril(v[0], 1); }, {m}));
  CHECK(g([](const Inputs& v) { return triu(transpose(v[0], 1, 2), -1); }, {m}));
}

// Sizes from user numbers that do not fit in int64 are errors, not
// wrapped sizes that pass the bounds checks and corrupt the heap.
TEST_CASE("shape arithmetic: pads, class counts and shapes beyond int64 raise instead of wrapping") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Tensor x = iota({3, 4});
  CHECK(throws_with([&] { pad(x, {max, max}); }, {"[pad]", "overflows int64"}));
  CHECK(throws_with([&] { pad(x, {max, 1}); }, {"[pad]", "overflows int64"}));
  Tensor index = zeros({3}, {.dtype = DType::Int64});
  CHECK(throws_with([&] { one_hot(index, int64_t{1} << 62); }, {"[numel]", "(3, 4611686018427387904)"}));
  CHECK(throws_with([&] { one_hot(index, max); }, {"[numel]"}));
  const Shape huge{(int64_t{1} << 62) + 3, 4};
  CHECK(throws_with([&] { reshape(x, huge); }, {"[numel]", "4611686018427387907"}));
  CHECK(throws_with([&] { expand(x, {huge[0], 3, 4}); }, {"[numel]"}));
  CHECK(throws_with([&] { broadcast_to(x, {huge[0], 3, 4}); }, {"[numel]"}));
  CHECK(throws_with([&] { view(x, huge); }, {"[numel]"}));
  CHECK(throws_with([&] { reshape(x, {huge[0], 4, -1}); }, {"[reshape]", "overflows int64"}));  // UBSan: known *= 4
  // 2^61 float64 elements fit in int64, their 2^64 bytes do not.
  CHECK(throws_with([&] { Tensor::empty({int64_t{1} << 60, 2}, DType::Float64, Device::cpu()); },
                    {"[empty]", "overflows int64"}));
  CHECK(throws_with([&] { contiguous_strides({int64_t{1} << 62, 8}); }, {"contiguous_strides"}));
  // In range, the same calls work.
  CHECK(pad(x, {1, 2}).shape() == Shape{3, 7});
  CHECK(one_hot(index, 5).shape() == Shape{3, 5});
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

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

}  // namespace cuda_cases


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

namespace {

Tensor idx(const std::vector<int64_t>& values, const Shape& shape = {}) {
  return from_vector(values, shape.empty() ? Shape{static_cast<int64_t>(values.size())} : shape);
}

}  // namespace

TEST_CASE("index_select and index_add: values") {
  Tensor e = iota({4, 3});
  // torch: e.index_select(0, tensor([3, 0, 3])) and e.index_select(1, tensor([2, 0])), e = arange(12.).reshape(4, 3)
  CHECK(allclose(index_select(e, 0, idx({3, 0, 3})), {9, 10, 11, 0, 1, 2, 9, 10, 11}));
  CHECK(allclose(index_select(e, 1, idx({2, 0})), {2, 0, 5, 3, 8, 6, 11, 9}));
  CHECK(allclose(index_select(transpose(e, 0, 1), 0, idx({2})), {2, 5, 8, 11}));  // strided x
  CHECK(
      allclose(index_select(e, -1, slice(idx({1, 9, 0, 9}), 0, 0, 4, 2)), {1, 0, 4, 3, 7, 6, 10, 9}));  // strided index
  CHECK(index_select(arange(5), 0, idx({4, 4})).to_vector_as<int64_t>() == std::vector<int64_t>{4, 4});
  CHECK(index_select(e, 0, idx({})).shape() == Shape{0, 3});

  // Duplicates accumulate: rows 0 and 2 of src both land in row 1.
  Tensor src = iota({3, 3});
  Tensor out = index_add(zeros({2, 3}, {.dtype = DType::Float64}), 0, idx({1, 0, 1}), src);
  CHECK(allclose(out, {3, 4, 5, 6, 8, 10}));
  CHECK(allclose(index_add(ones({2, 2}, {.dtype = DType::Float64}), 1, idx({1, 1}), iota({2, 2})), {1, 2, 1, 6}));
}

TEST_CASE("gather and scatter_add: values") {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  // torch: torch.gather(x, 1, tensor([[0, 0], [1, 0]])) -> [[1, 1], [5, 4]]
  CHECK(allclose(gather(x, 1, idx({0, 0, 1, 0}, {2, 2})), {1, 1, 5, 4}));
  // torch: torch.gather(x, 0, tensor([[1, 0, 1]])) -> [[4, 2, 6]]
  CHECK(allclose(gather(x, 0, idx({1, 0, 1}, {1, 3})), {4, 2, 6}));
  CHECK(allclose(gather(transpose(x, 0, 1), 1, idx({1, 0, 0}, {3, 1})), {4, 2, 3}));  // x.t().gather(1, ...)

  Tensor src = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  // torch: torch.zeros(3, 3).scatter_add(0, tensor([[0, 1, 0], [2, 0, 0]]), src)
  CHECK(allclose(scatter_add(zeros({3, 3}), 0, idx({0, 1, 0, 2, 0, 0}, {2, 3}), src), {1, 5, 9, 0, 2, 0, 4, 0, 0}));
  // torch: torch.ones(2, 4).scatter_add(1, tensor([[3, 3], [0, 1]]), src): src larger than index
  CHECK(allclose(scatter_add(ones({2, 4}), 1, idx({3, 3, 0, 1}, {2, 2}), src), {1, 1, 1, 4, 5, 6, 1, 1}));
  // Non-contiguous x and src.
  Tensor xt = transpose(zeros({3, 2}), 0, 1);
  CHECK(allclose(scatter_add(xt, 1, idx({2, 2, 0, 1, 1, 1}, {2, 3}), transpose(transpose(src, 0, 1), 0, 1)),
                 {3, 0, 3, 0, 15, 0}));  // row 0: [2] += 1 + 2, [0] += 3; row 1: [1] += 4 + 5 + 6
  CHECK(scatter_add(arange(3), 0, idx({0, 0}), idx({5, 6})).to_vector_as<int64_t>() == std::vector<int64_t>{11, 1, 2});
}

TEST_CASE("one_hot") {
  // torch: F.one_hot(tensor([[0, 2], [1, 1]]), 3)
  Tensor o = one_hot(idx({0, 2, 1, 1}, {2, 2}), 3);
  CHECK(o.shape() == Shape{2, 2, 3});
  CHECK(o.dtype() == DType::Int64);
  CHECK(o.to_vector_as<int64_t>() == std::vector<int64_t>{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0});
  CHECK(allclose(one_hot(idx({1}), 2, DType::Float32), {0, 1}));
  CHECK(throws_with([] { one_hot(idx({0, 3}), 3); }, {"[one_hot]", "class value 3", "[0, 3)"}));
  CHECK(throws_with([] { one_hot(idx({-1}), 3); }, {"[one_hot]", "class value -1"}));
  CHECK(throws_with([] { one_hot(tensor({1.0}), 3); }, {"[one_hot]", "int64", "float32"}));
  CHECK(throws_with([] { one_hot(idx({1}), 0); }, {"[one_hot]", "num_classes"}));
}

TEST_CASE("indexing: bad indices and shapes throw before touching memory") {
  Tensor x = iota({3, 4});
  CHECK(throws_with([&] { index_select(x, 0, idx({0, 3})); }, {"[index_select]", "index 3", "size 3", "[0, 3)"}));
  CHECK(throws_with([&] { index_select(x, 1, idx({-1})); }, {"[index_select]", "index -1", "[0, 4)"}));
  CHECK(throws_with([&] { index_select(x, 0, tensor({0.0})); }, {"[index_select]", "int64", "float32"}));
  CHECK(throws_with([&] { index_select(x, 0, idx({0, 1}, {1, 2})); }, {"[index_select]", "1-d", "(1, 2)"}));
  CHECK(throws_with([&] { index_select(x, 2, idx({0})); }, {"[index_select]", "dim 2"}));

  CHECK(throws_with([&] { gather(x, 1, idx({0, 4}, {1, 2})); }, {"[gather]", "index 4", "dim 1", "[0, 4)"}));
  CHECK(throws_with([&] { gather(x, 0, idx({0, 1})); }, {"[gather]", "(2,)", "(3, 4)", "dims"}));
  CHECK(throws_with([&] { gather(x, 1, idx({0, 0, 0, 0, 0}, {5, 1})); }, {"[gather]", "(5, 1)", "dim 0"}));
  CHECK(throws_with([&] { gather(x, 1, idx({0}, {1, 1}).to(DType::Float64)); }, {"[gather]", "int64", "float64"}));

  Tensor src = ones({2, 2}, {.dtype = DType::Float64});
  CHECK(throws_with(
      [&] {
        scatter_add(x, 0, idx({0, 1, 3, 0}, {2, 2}), src);
      },
      {"[scatter_add]", "index 3", "size 3"}));
  CHECK(throws_with([&] { scatter_add(x, 0, idx({0, 1, -7, 0}, {2, 2}), src); }, {"[scatter_add]", "index -7"}));
  CHECK(throws_with([&] { scatter_add(x, 0, idx({0, 0, 0}, {1, 3}), src); }, {"[scatter_add]", "(1, 3)", "(2, 2)"}));
  CHECK(throws_with(
      [&] {
        scatter_add(x, 0, idx({0}, {1, 1}), src.to(DType::Float32));
      },
      {"[scatter_add]", "float32", "float64"}));
  CHECK(throws_with(
      [&] {
        index_add(x, 0, idx({0, 5}), ones({2, 4}, {.dtype = DType::Float64}));
      },
      {"[index_add]", "index 5", "[0, 3)"}));
  CHECK(throws_with(
      [&] {
        index_add(x, 0, idx({0}), ones({2, 4}, {.dtype = DType::Float64}));
      },
      {"[index_add]", "(2, 4)", "(1, 4)"}));
  // Nothing was written by the failed calls.
  CHECK(allclose(x, iota({3, 4})));
}

TEST_CASE("indexing: large inputs (parallel paths) match a scalar reference") {
  const int64_t R = 300, C = 257, N = 7;
  Generator gen(11);
  Tensor x = randn({R, C}, {.dtype = DType::Float64}, &gen);
  Tensor index = randint(0, N, {R, C}, &gen);
  std::vector<double> xv = x.to_vector();
  std::vector<int64_t> iv = index.to_vector_as<int64_t>();

  // scatter_add along dim 0 into (N, C): many duplicates per column.
  std::vector<double> expected(N * C, 0.0);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) expected[iv[r * C + c] * C + c] += xv[r * C + c];
  CHECK(allclose(scatter_add(zeros({N, C}, {.dtype = DType::Float64}), 0, index, x), expected, 1e-12, 1e-12));

  // gather along dim 1 with indices < N.
  std::vector<double> gathered(R * C);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) gathered[r * C + c] = xv[r * C + iv[r * C + c]];
  CHECK(allclose(gather(x, 1, index), gathered, 0, 0));

  // index_add along dim 0 (the embedding-gradient shape) with repeated rows.
  Tensor rows = randint(0, N, {R}, &gen);
  std::vector<int64_t> rv = rows.to_vector_as<int64_t>();
  std::vector<double> summed(N * C, 0.0);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) summed[rv[r] * C + c] += xv[r * C + c];
  CHECK(allclose(index_add(zeros({N, C}, {.dtype = DType::Float64}), 0, rows, x), summed, 1e-12, 1e-12));
  CHECK(allclose(narrow(index_select(x, 0, rows), 0, 0, 2), stack({select(x, 0, rv[0]), select(x, 0, rv[1])}), 0, 0));
}

TEST_CASE("scatter_add and gather: every dim of a 3-d tensor, strided operands, vs a scalar reference") {
  Generator gen(5);
  const Shape xs{3, 4, 5}, is{2, 3, 4};
  for (int64_t dim = 0; dim < 3; ++dim) {
    Tensor index = randint(0, xs[dim], is, &gen);
    // src (2, 4, 5) read through a permuted view, so its strides are not contiguous.
    Tensor src = permute(randn({5, 2, 4}, {.dtype = DType::Float64}, &gen), {1, 2, 0});
    Tensor x = randn(xs, {.dtype = DType::Float64}, &gen);
    std::vector<double> expected = x.to_vector(), sv = src.contiguous().to_vector(), xv = x.to_vector();
    std::vector<int64_t> iv = index.to_vector_as<int64_t>();
    std::vector<double> gathered(numel_of(is));
    for (int64_t a = 0; a < is[0]; ++a)
      for (int64_t b = 0; b < is[1]; ++b)
        for (int64_t c = 0; c < is[2]; ++c) {
          int64_t p[3] = {a, b, c};
          const int64_t flat = (a * is[1] + b) * is[2] + c;
          p[dim] = iv[flat];
          const int64_t target = (p[0] * xs[1] + p[1]) * xs[2] + p[2];
          expected[target] += sv[(a * 4 + b) * 5 + c];
          gathered[flat] = xv[target];
        }
    CHECK(allclose(scatter_add(x, dim, index, src), expected, 1e-12, 1e-12));
    CHECK(allclose(gather(x, dim, index), gathered, 0, 0));
    CHECK(allclose(gather(x, dim, transpose(transpose(index, 0, 2).contiguous(), 0, 2)), gathered, 0, 0));
  }
}

TEST_CASE("gradcheck: index_select, index_add, gather, scatter_add (repeated indices)") {
  auto g = [](auto f, const Inputs& in) { return gradcheck(f, in); };
  Tensor x = leaf64({4, 3}, 1);
  Tensor rep = idx({2, 0, 2, 2});
  CHECK(g([&](const Inputs& v) { return index_select(v[0], 0, rep); }, {x}));
  CHECK(g([&](const Inputs& v) { return index_select(transpose(v[0], 0, 1), 1, rep); }, {x}));  // non-contiguous
  CHECK(g([&](const Inputs& v) { return index_select(v[0], 1, idx({1, 1, 0})); }, {x}));

  Tensor s = leaf64({4, 2}, 2);
  CHECK(g([&](const Inputs& v) { return index_add(v[0], 1, idx({2, 2}), v[1]); }, {x, s}));

  Tensor gi = idx({0, 0, 2, 1, 1, 1}, {2, 3});
  CHECK(g([&](const Inputs& v) { return gather(v[0], 1, gi); }, {x}));                   // index smaller than x
  CHECK(g([&](const Inputs& v) { return gather(transpose(v[0], 0, 1), 0, gi); }, {x}));  // (3, 4) x
  CHECK(g([&](const Inputs& v) { return gather(v[0], 0, idx({3, 3, 3, 0, 0, 0}, {2, 3})); }, {x}));

  Tensor base = leaf64({3, 4}, 3), src = leaf64({2, 5}, 4);
  Tensor si = idx({1, 1, 0, 2, 2, 2, 2, 0}, {2, 4});  // duplicates along dim 0 and src larger than index
  CHECK(g([&](const Inputs& v) { return scatter_add(v[0], 0, si, v[1]); }, {base, src}));
  CHECK(g([&](const Inputs& v) { return scatter_add(transpose(v[0], 0, 1), 1, transpose(si, 0, 1), v[1]); },
          {base, leaf64({4, 2}, 5)}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

namespace {

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

}  // namespace cuda_cases

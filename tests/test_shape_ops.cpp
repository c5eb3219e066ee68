#include <limits>

#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::iota;
using hm::test::leaf64;
using hm::test::throws_with;
using Inputs = std::vector<Tensor>;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

}  // namespace

TEST_CASE("reshape/view: views when strides allow, copies otherwise") {
  Tensor x = iota({2, 3, 4});
  Tensor r = reshape(x, {4, -1});
  CHECK(r.shape() == Shape{4, 6});
  CHECK(shares_storage(r, x));
  r.fill_(0);  // writing through the view is visible in the base
  CHECK(sum(x).item<double>() == 0);

  x = iota({2, 3, 4});
  // torch: x.permute(1,0,2) strides (4,12,1); .view(3,2,2,2).stride() == (4,12,2,1)
  Tensor p = permute(x, {1, 0, 2});
  CHECK(p.strides() == Strides{4, 12, 1});
  Tensor v = view(p, {3, 2, 2, 2});
  CHECK(v.strides() == Strides{4, 12, 2, 1});
  CHECK(shares_storage(v, x));
  // torch: not viewable, so reshape copies: x.permute(1,0,2).reshape(3,8)
  Tensor c = reshape(p, {3, 8});
  CHECK_FALSE(shares_storage(c, x));
  CHECK(c.is_contiguous());
  CHECK(allclose(select(c, 0, 1), {4, 5, 6, 7, 16, 17, 18, 19}));
  CHECK(throws_with([&] { view(p, {3, 8}); }, {"[view]", "(3, 8)", "(3, 2, 4)", "(4, 12, 1)", "reshape"}));

  // Expanded (stride 0) dims: torch e.view(3,2,2).stride() == (0,2,1), e.view(1,3,4,1).stride() == (0,0,1,1)
  Tensor e = expand(reshape(iota({4}), {1, 4}), {3, 4});
  CHECK(view(e, {3, 2, 2}).strides() == Strides{0, 2, 1});
  CHECK(view(e, {1, 3, 4, 1}).strides() == Strides{0, 0, 1, 1});
  CHECK(throws_with([&] { view(e, {12}); }, {"[view]"}));
  // A step slice: x[:, ::2, 1:] has strides (12, 8, 1) and cannot merge dims 0 and 1.
  Tensor s = slice(slice(x, 1, 0, 3, 2), 2, 1, 4);
  CHECK(s.strides() == Strides{12, 8, 1});
  CHECK(allclose(reshape(s, {4, 3}), {1, 2, 3, 9, 10, 11, 13, 14, 15, 21, 22, 23}));

  CHECK(reshape(scalar_tensor(3.0), {1, 1}).shape() == Shape{1, 1});
  CHECK(reshape(zeros({0, 3}), {3, -1, 2}).shape() == Shape{3, 0, 2});
  CHECK(throws_with([&] { reshape(x, {-1, -1}); }, {"[reshape]", "more than one -1"}));
  CHECK(throws_with([&] { reshape(x, {5, -1}); }, {"[reshape]", "(2, 3, 4)", "(5, -1)"}));
  CHECK(throws_with([&] { reshape(x, {4, 5}); }, {"[reshape]", "24 elements", "20 elements"}));
}

TEST_CASE("flatten, permute, transpose, squeeze, unsqueeze") {
  Tensor x = iota({2, 3, 4});
  CHECK(flatten(x).shape() == Shape{24});
  CHECK(flatten(x, 1).shape() == Shape{2, 12});
  CHECK(flatten(x, 0, 1).shape() == Shape{6, 4});
  CHECK(flatten(scalar_tensor(1.0)).shape() == Shape{1});
  CHECK(throws_with([&] { flatten(x, 2, 1); }, {"[flatten]"}));

  Tensor t = transpose(x, 0, -1);  // (4, 3, 2)
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(shares_storage(t, x));
  CHECK(allclose(select(select(t, 0, 1), 0, 2), {9, 21}));
  CHECK(throws_with([&] { permute(x, {0, 1}); }, {"[permute]", "(2, 3, 4)"}));
  CHECK(throws_with([&] { permute(x, {0, 1, 1}); }, {"[permute]", "repeated"}));
  CHECK(throws_with([&] { permute(x, {0, 1, 3}); }, {"[permute]", "dim 3 out of range"}));

  Tensor u = unsqueeze(x, 1);
  CHECK(u.shape() == Shape{2, 1, 3, 4});
  CHECK(unsqueeze(x, -1).shape() == Shape{2, 3, 4, 1});
  // torch: x.t().unsqueeze(0).stride() == (3, 1, 3) for x of shape (2, 3)
  CHECK(unsqueeze(transpose(iota({2, 3}), 0, 1), 0).strides() == Strides{3, 1, 3});
  CHECK(squeeze(u, 1).shape() == Shape{2, 3, 4});
  CHECK(squeeze(u, 0).shape() == Shape{2, 1, 3, 4});  // size 2: unchanged, as in PyTorch
  CHECK(squeeze(zeros({1, 2, 1})).shape() == Shape{2});
  CHECK(squeeze(zeros({1, 1})).shape() == Shape{});
  CHECK(throws_with([&] { unsqueeze(x, 4); }, {"[unsqueeze]", "dim 4"}));
  CHECK(throws_with([&] { squeeze(x, 3); }, {"[squeeze]", "dim 3"}));
}

TEST_CASE("expand and broadcast_to") {
  Tensor b = tensor({1, 2, 3}, {3, 1});
  Tensor e = expand(b, {2, -1, 4});  // new leading dim, -1 keeps, 1 -> 4
  CHECK(e.shape() == Shape{2, 3, 4});
  CHECK(e.strides() == Strides{0, 1, 0});
  CHECK(shares_storage(e, b));
  CHECK(allclose(select(e, 1, 2), {3, 3, 3, 3, 3, 3, 3, 3}));
  CHECK(broadcast_to(b, {3, 2}).shape() == Shape{3, 2});
  CHECK(throws_with([&] { expand(b, {2, 4}); }, {"[expand]", "(3, 1)", "(2, 4)", "size 3"}));
  CHECK(throws_with([&] { broadcast_to(b, {4}); }, {"[broadcast_to]", "fewer dims"}));
  CHECK(throws_with([&] { expand(b, {-1, 3, 1}); }, {"[expand]", "leading"}));
}

TEST_CASE("slice, narrow, select: Python bounds, views") {
  Tensor x = iota({10});
  CHECK(allclose(slice(x, 0, 2, 9, 3), {2, 5, 8}));  // torch.arange(10.)[2:9:3]
  CHECK(allclose(slice(x, 0, -3, 100), {7, 8, 9}));  // [-3:100]
  CHECK(allclose(slice(x, 0, -100, 3), {0, 1, 2}));  // [-100:3]
  CHECK(slice(x, 0, 8, 2).numel() == 0);             // [8:2]
  CHECK(throws_with([&] { slice(x, 0, 0, 5, 0); }, {"[slice]", "step", "0"}));
  CHECK(throws_with([&] { slice(x, 0, 0, 5, -1); }, {"[slice]", "step"}));
  CHECK(throws_with([&] { slice(x, 1, 0, 5); }, {"[slice]", "dim 1"}));

  Tensor m = iota({3, 4});
  Tensor n = narrow(m, 1, -3, 2);  // torch: narrow(1, -3, 2) -> columns 1, 2
  CHECK(allclose(n, {1, 2, 5, 6, 9, 10}));
  n.fill_(-1);
  CHECK(allclose(select(m, 0, 0), {0, -1, -1, 3}));  // written through the view
  CHECK(throws_with([&] { narrow(m, 1, 2, 3); }, {"[narrow]", "start 2", "length 3", "size 4"}));
  CHECK(allclose(select(m, 1, -1), {3, 7, 11}));
  CHECK(select(m, 0, 2).shape() == Shape{4});
  CHECK(throws_with([&] { select(m, 0, 3); }, {"[select]", "index 3", "size 3"}));
}

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

TEST_CASE("gradcheck: view ops") {
  Tensor x = leaf64({2, 3, 4}, 1);
  auto g = [](auto f, const Inputs& in) { return gradcheck(f, in); };
  CHECK(g([](const Inputs& v) { return reshape(v[0], {4, -1}); }, {x}));
  CHECK(g([](const Inputs& v) { return reshape(permute(v[0], {2, 0, 1}), {8, 3}); }, {x}));  // copying reshape
  CHECK(g([](const Inputs& v) { return view(v[0], {6, 4}); }, {x}));
  CHECK(g([](const Inputs& v) { return flatten(transpose(v[0], 0, 2), 1); }, {x}));
  CHECK(g([](const Inputs& v) { return permute(v[0], {1, 2, 0}) * 2.0; }, {x}));
  CHECK(g([](const Inputs& v) { return unsqueeze(squeeze(unsqueeze(v[0], 1), 1), -1); }, {x}));
  Tensor b = leaf64({3, 1}, 2);
  CHECK(g([](const Inputs& v) { return expand(v[0], {2, 3, 4}); }, {b}));
  CHECK(g([](const Inputs& v) { return broadcast_to(transpose(v[0], 0, 1), {3, 3}); }, {b}));
  CHECK(g([](const Inputs& v) { return slice(v[0], 2, -3, 4, 2); }, {x}));
  CHECK(g([](const Inputs& v) { return slice(transpose(v[0], 1, 2), 1, 1, 3); }, {x}));
  CHECK(g([](const Inputs& v) { return narrow(v[0], 1, 1, 2); }, {x}));
  CHECK(g([](const Inputs& v) { return select(v[0], 2, -1); }, {x}));
  CHECK(g([](const Inputs& v) { return select(transpose(v[0], 0, 2), 0, 1); }, {x}));
  // The same input used twice through different views accumulates.
  CHECK(g([](const Inputs& v) { return mul(select(v[0], 1, 0), squeeze(narrow(v[0], 1, 2, 1), 1)); }, {x}));
  // sum_to (used by every broadcasting backward) is differentiable now that it reshapes.
  CHECK(g([](const Inputs& v) { return sum_to(v[0], {3, 1}); }, {x}));
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

// Issue 16's overflow findings: sizes from user numbers that do not fit in int64 are errors, not
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

// The view ops: reshape/view, flatten/permute/transpose/squeeze/unsqueeze, expand, slicing.
#include <limits>

#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

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
  Tensor b = tensor({1.0, 2.0, 3.0}, {3, 1});
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

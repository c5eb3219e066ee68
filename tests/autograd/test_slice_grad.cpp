// Gradients of many slices (select/narrow/slice/split) of one tensor: the engine sums them
// into one buffer per input (Node::accumulate_into) instead of one full-size zeros tensor per
// slice. Values, hooks, retain_grad/retain_graph and anomaly mode must be as before, and the
// memory a backward allocates must grow linearly with the number of slices.
#include "harmonic/autograd/gradcheck.h"
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/cpu_allocator.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::iota;
using hm::test::leaf64;
using hm::test::throws_with;
using Inputs = std::vector<Tensor>;

namespace {

// Overlapping narrows, a strided slice, repeated selects, split pieces and an ordinary use
// of h, each weighted so that a wrong or missing contribution changes the result.
Tensor many_slices(const Tensor& h) {
  Tensor w = iota(h.shape());
  Tensor loss = mul(sum(mul(h, w)), 0.5);
  for (int64_t t = 0; t < h.shape()[1]; ++t) loss = add(loss, mul(sum(mul(select(h, 1, t), select(w, 1, t))), t + 1.0));
  loss = add(loss, sum(mul(select(h, 1, 2), 3.0)));  // the same index again
  loss = add(loss, sum(mul(narrow(h, 0, 0, 3), narrow(w, 0, 1, 3))));
  loss = add(loss, sum(mul(narrow(h, 0, 1, 3), 2.0)));  // overlaps the previous narrow
  loss = add(loss, sum(mul(slice(h, 1, 0, 5, 2), -1.5)));
  for (const Tensor& piece : split(h, 2, 0)) loss = add(loss, sum(mul(piece, piece)));
  return loss;
}

// d many_slices / dh worked out by hand, for h of shape (4, 5).
Tensor many_slices_grad(const Tensor& h) {
  std::vector<double> hv = h.contiguous().to_vector(), g(20);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t t = 0; t < 5; ++t) {
      const double w = static_cast<double>(i * 5 + t);
      double v = 0.5 * w + (t + 1.0) * w + (t == 2 ? 3.0 : 0.0);
      if (i < 3) v += static_cast<double>((i + 1) * 5 + t);
      if (i >= 1) v += 2.0;
      if (t % 2 == 0) v -= 1.5;
      v += 2.0 * hv[i * 5 + t];
      g[i * 5 + t] = v;
    }
  return from_vector(g, {4, 5}, {.dtype = DType::Float64});
}

// Bytes allocated on this thread by one backward through T selects of a (2, T, 8) tensor.
// With leaf_hook, x keeps the old path (one full-size gradient per select).
int64_t backward_bytes(int64_t T, bool through_node, bool leaf_hook = false) {
  Tensor x = zeros({2, T, 8}).requires_grad_(true);
  if (leaf_hook) x.register_hook([](const Tensor&) { return Tensor(); });
  Tensor h = through_node ? mul(x, 2.0) : x;
  Tensor loss = zeros({});
  for (int64_t t = 0; t < T; ++t) loss = add(loss, sum(select(h, 1, t)));
  const int64_t before = cpu_allocated_bytes();
  loss.backward();
  const int64_t bytes = cpu_allocated_bytes() - before;
  CHECK(allclose(x.grad(), full({2, T, 8}, through_node ? 2.0 : 1.0)));
  return bytes;
}

}  // namespace

TEST_CASE("slice grad: many slices of a leaf and of a non-leaf sum to the right gradient") {
  Tensor x = leaf64({4, 5}, 3);
  many_slices(x).backward();
  CHECK(allclose(x.grad(), many_slices_grad(x), 1e-12, 1e-12));

  // Through a node, and with h a non-contiguous (transposed) view.
  Tensor y = leaf64({5, 4}, 4);
  Tensor h = transpose(mul(y, 2.0), 0, 1);
  REQUIRE_FALSE(h.is_contiguous());
  many_slices(h).backward();
  CHECK(allclose(y.grad(), transpose(mul(many_slices_grad(h.detach()), 2.0), 0, 1), 1e-12, 1e-12));

  // Anomaly mode takes the old path (one full gradient per slice): the same values.
  Tensor y2 = y.detach().requires_grad_(true);
  {
    AnomalyGuard anomaly;
    many_slices(transpose(mul(y2, 2.0), 0, 1)).backward();
  }
  CHECK(allclose(y2.grad(), y.grad(), 1e-12, 1e-12));
}

TEST_CASE("slice grad: float64 gradcheck through many slices") {
  auto f = [](const Inputs& in) { return many_slices(transpose(mul(in[0], in[1]), 0, 1)); };
  CHECK(gradcheck(f, {leaf64({5, 4}, 5), leaf64({5, 4}, 6)}));
  auto g = [](const Inputs& in) { return many_slices(in[0]); };
  CHECK(gradcheck(g, {leaf64({4, 5}, 7)}));
}

TEST_CASE("slice grad: hooks and retain_grad see the full summed gradient") {
  Tensor x = leaf64({4, 5}, 8);
  Tensor h = mul(x, 1.0);
  int calls = 0;
  Tensor seen;
  h.register_hook([&](const Tensor& g) {
    ++calls;
    seen = g.clone();
    return mul(g, 2.0);  // a replacing hook still scales what reaches x
  });
  h.retain_grad();
  many_slices(h).backward();
  CHECK(calls == 1);
  CHECK(allclose(seen, many_slices_grad(h.detach()), 1e-12, 1e-12));
  // retain_grad keeps the hook's result (hooks run first), as for any non-leaf.
  CHECK(allclose(h.grad(), mul(many_slices_grad(h.detach()), 2.0), 1e-12, 1e-12));
  CHECK(allclose(x.grad(), mul(many_slices_grad(h.detach()), 2.0), 1e-12, 1e-12));

  // A leaf hook is called once per incoming gradient, each of the leaf's full shape, as
  // before; the hook's replacement is what accumulates.
  Tensor z = leaf64({3, 4}, 9);
  int leaf_calls = 0;
  z.register_hook([&](const Tensor& g) {
    ++leaf_calls;
    CHECK(g.shape() == Shape{3, 4});
    return mul(g, 3.0);
  });
  add(sum(select(z, 0, 0)), add(sum(select(z, 0, 2)), sum(narrow(z, 1, 1, 2)))).backward();
  CHECK(leaf_calls == 3);
  CHECK(allclose(z.grad(), {3, 6, 6, 3, 0, 3, 3, 0, 3, 6, 6, 3}));
}

TEST_CASE("slice grad: a gradient the engine did not allocate is never written to") {
  // out = h + h[1] (broadcast): add passes the user's upstream gradient G itself to h, then
  // the select's gradient arrives for the same h and must not be added into G.
  Tensor x = leaf64({3, 4}, 10);
  Tensor h = mul(x, 2.0);
  Tensor out = add(h, select(h, 0, 1));
  Tensor G = iota({3, 4});
  Tensor G_copy = G.clone();
  out.backward(G);
  CHECK(allclose(G, G_copy, 0, 0));
  Tensor colsum = sum(G_copy, {0});
  Tensor expect = mul(add(G_copy, mul(unsqueeze(colsum, 0), from_vector(std::vector<double>{0, 1, 0}, {3, 1}))), 2.0);
  CHECK(allclose(x.grad(), expect, 1e-12, 1e-12));

  // Same for a leaf whose .grad aliases the upstream gradient from an earlier contribution.
  Tensor z = leaf64({3, 4}, 11);
  Tensor G2 = iota({3, 4});
  add(z, select(z, 0, 0)).backward(G2);
  CHECK(allclose(G2, iota({3, 4}), 0, 0));
}

TEST_CASE("slice grad: retain_graph accumulates twice, without it the graph is freed") {
  Tensor x = leaf64({4, 5}, 12);
  Tensor h = mul(x, 1.0);
  Tensor loss = many_slices(h);
  loss.backward({}, true);
  loss.backward({}, true);
  CHECK(allclose(x.grad(), mul(many_slices_grad(x.detach()), 2.0), 1e-12, 1e-12));
  loss.backward();
  CHECK(throws_with([&] { loss.backward(); }, {"already freed", "retain_graph"}));
}

TEST_CASE("slice grad: backward through T selects allocates O(T), not O(T^2)") {
  for (bool through_node : {false, true}) {
    CAPTURE(through_node);
    const int64_t b64 = backward_bytes(64, through_node), b128 = backward_bytes(128, through_node);
    MESSAGE("T=64: " << b64 << " bytes, T=128: " << b128 << " bytes");
    // One full-size (2, T, 8) float32 buffer per slice would be 64 * 4 KiB = 256 KiB at T=64
    // and 1 MiB at T=128 (ratio 4); one buffer plus the slices' own gradients is linear.
    const double full128 = 2.0 * 128 * 8 * 4;
    CHECK(static_cast<double>(b128) / static_cast<double>(b64) < 2.5);
    CHECK(static_cast<double>(b128) < 8 * full128);
  }
  // The counter does see the quadratic cost of the path kept for leaves with hooks.
  const int64_t old64 = backward_bytes(64, false, true), old128 = backward_bytes(128, false, true);
  MESSAGE("leaf with a hook: T=64: " << old64 << " bytes, T=128: " << old128 << " bytes");
  CHECK(static_cast<double>(old128) / static_cast<double>(old64) > 3.5);
}

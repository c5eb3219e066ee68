// autograd::register_grad_ready_hook: a leaf's hook runs once per backward pass that reaches it,
// after the last contribution to its .grad (data-parallel training starts the leaf's
// all-reduce from there), and in the order backward finishes the leaves.
#include <map>

#include "harmonic/autograd/grad_ready.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

// Records each hook call: which leaf, and its .grad at that moment.
struct ReadyLog {
  std::vector<std::string> order;
  std::map<std::string, Tensor> grad_at_hook;
  void watch(const Tensor& leaf, const std::string& name) {
    autograd::register_grad_ready_hook(leaf, [this, name](const Tensor& t) {
      order.push_back(name);
      grad_at_hook[name] = t.grad().clone();
    });
  }
};

}  // namespace

TEST_CASE("grad-ready hook: once per pass, after every contribution to the leaf") {
  Tensor w = leaf64({3, 3}, 1), x = leaf64({3, 3}, 2), unused = leaf64({2}, 3);
  ReadyLog log;
  log.watch(w, "w");
  log.watch(x, "x");
  log.watch(unused, "unused");
  // w feeds three ops at different depths; x only the last (first in backward).
  Tensor h = tanh(matmul(x, w));
  Tensor loss = add(add(sum(mul(h, w)), sum(mul(w, w))), sum(x));
  loss.backward();
  CHECK(log.order.size() == 2);  // `unused` was not reached: no call
  CHECK(std::count(log.order.begin(), log.order.end(), "w") == 1);
  CHECK(std::count(log.order.begin(), log.order.end(), "x") == 1);
  // At the hook, .grad already is the final gradient of this pass.
  CHECK(allclose(log.grad_at_hook["w"], w.grad(), 0, 0));
  CHECK(allclose(log.grad_at_hook["x"], x.grad(), 0, 0));
}

TEST_CASE("grad-ready hook: leaves are ready in backward order, the last layer first") {
  Tensor w1 = leaf64({4, 4}, 1), w2 = leaf64({4, 4}, 2), w3 = leaf64({4, 4}, 3), x = leaf64({2, 4}, 4);
  ReadyLog log;
  log.watch(w1, "w1");
  log.watch(w2, "w2");
  log.watch(w3, "w3");
  Tensor loss = sum(matmul(tanh(matmul(tanh(matmul(x.detach(), w1)), w2)), w3));
  loss.backward();
  CHECK(log.order == std::vector<std::string>{"w3", "w2", "w1"});
}

TEST_CASE("grad-ready hook: gradients of many slices are summed before the hook") {
  // select() in a loop goes through the engine's per-leaf view buffer: it must be flushed into
  // .grad before the hook, not at the end of backward.
  Tensor h = leaf64({4, 5}, 1), w = leaf64({5, 5}, 2);
  ReadyLog log;
  log.watch(h, "h");
  log.watch(w, "w");
  Tensor loss = sum(matmul(h, w));
  for (int64_t t = 0; t < 5; ++t) loss = add(loss, mul(sum(select(h, 1, t)), t + 1.0));
  loss.backward();
  REQUIRE(log.grad_at_hook.count("h") == 1);
  CHECK(allclose(log.grad_at_hook["h"], h.grad(), 0, 0));
  // d/dh: row sums of w, plus t + 1 in column t.
  std::vector<double> expected;
  const std::vector<double> wv = w.to_vector();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t t = 0; t < 5; ++t) {
      double row = 0;
      for (int64_t j = 0; j < 5; ++j) row += wv[static_cast<size_t>(t * 5 + j)];
      expected.push_back(row + t + 1.0);
    }
  CHECK(allclose(h.grad(), expected, 1e-12, 1e-12));
}

TEST_CASE("grad-ready hook: a backward from the leaf itself, accumulation across passes, bad use") {
  Tensor a = leaf64({3}, 1);
  int calls = 0;
  autograd::register_grad_ready_hook(a, [&](const Tensor& t) {
    ++calls;
    CHECK(t.same(a));
  });
  a.backward(ones({3}, {.dtype = DType::Float64}));
  CHECK(calls == 1);
  sum(mul(a, 2.0)).backward();  // a second pass accumulates into .grad and calls again
  CHECK(calls == 2);
  CHECK(allclose(a.grad(), std::vector<double>{3, 3, 3}));
  Tensor not_leaf = mul(a, 2.0);
  CHECK(throws_with([&] { autograd::register_grad_ready_hook(not_leaf, [](const Tensor&) {}); },
                    {"register_grad_ready_hook", "not a leaf"}));
  CHECK(throws_with([] { autograd::register_grad_ready_hook(zeros({2}), [](const Tensor&) {}); },
                    {"register_grad_ready_hook"}));
}

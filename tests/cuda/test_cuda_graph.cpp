// CUDA graph capture (cuda/runtime/graph.h) on cuda:0: a real GPU where there is one, else the
// emulated device (ctest runs the [cuda] cases under HARMONIC_EMULATE_CUDA=1).
#include <doctest/doctest.h>

#include "harmonic/core/constant_cache.h"
#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/ops/dropout.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/ops.h"
#include "tests/device_harness.h"

namespace hm::test {
namespace {

// out = tanh(x @ w) * 2 + 1, written into out (the sequence the graph records).
void graph_test_work(const Tensor& x, const Tensor& w, Tensor& out) { out.copy_(add(mul(tanh(matmul(x, w)), 2.0), 1.0)); }

}  // namespace

TEST_CASE("[cuda] a captured graph replays an op sequence bit for bit as eager runs it") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  Tensor x = uniform({4, 5}, -1, 1, {.device = d}), w = uniform({5, 3}, -1, 1, {.device = d});
  Tensor out = zeros({4, 3}, {.device = d});
  graph_test_work(x, w, out);
  const std::vector<double> eager = out.to_vector();
  out.fill_(0.0);

  cuda::Graph graph;
  graph.begin_capture(0);
  CHECK(cuda::capturing(0));
  graph_test_work(x, w, out);
  graph.end_capture();
  CHECK_FALSE(cuda::capturing(0));
  CHECK(graph.ready());
  CHECK(graph.node_count() >= 4);  // gemm, tanh, mul, add, copy
  CHECK(out.to_vector() == std::vector<double>(12, 0.0));  // a capture runs nothing
  graph.replay();
  CHECK(out.to_vector() == eager);

  // New values in the captured input: the replay reads them.
  x.copy_(uniform({4, 5}, -2, 2, {.device = d}));
  Tensor expected = zeros({4, 3}, {.device = d});
  graph_test_work(x, w, expected);
  graph.replay();
  CHECK(out.to_vector() == expected.to_vector());
}

TEST_CASE("[cuda] device_constant copies a host constant once, so a capture can use it") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  const Tensor host = from_vector(std::vector<double>{0.25, -3.0, 7.5}, {3});
  const Tensor a = device_constant(host, d);
  CHECK(a.device() == d);
  CHECK(a.to_vector() == host.to_vector());
  CHECK(device_constant(from_vector(std::vector<double>{0.25, -3.0, 7.5}, {3}), d).same(a));  // same bytes: the copy
  CHECK_FALSE(device_constant(from_vector(std::vector<double>{0.25, -3.0, 7.5}, {1, 3}), d).same(a));  // other shape
  CHECK(device_constant(host, Device::cpu()).same(host));

  Tensor out = zeros({3}, {.device = d});
  cuda::Graph graph;
  graph.begin_capture(0);
  out.copy_(mul(device_constant(from_vector(std::vector<double>{0.25, -3.0, 7.5}, {3}), d), 2.0));
  CHECK_THROWS_WITH_AS(device_constant(from_vector(std::vector<double>{1.0, 2.0}, {2}), d),
                       doctest::Contains("copies a host tensor to the device while a CUDA graph is being captured"), Error);
  graph.end_capture();
  graph.replay();
  CHECK(out.to_vector() == std::vector<double>{0.5, -6.0, 15.0});
}

// One step: two dropouts of x (0.4 then 0.25) and the gradient of sum(z^2) into x.grad.
Tensor graph_dropout_step(const Tensor& x) {
  x.zero_grad();
  Tensor z = dropout(dropout(x, 0.4, true), 0.25, true);
  sum(mul(z, z)).backward();
  return z;
}

TEST_CASE("[cuda] replayed dropout draws eager's masks step for step and leaves the generator where eager does") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  Tensor x = add(rand({37}, {.device = d}), 0.5);
  x.requires_grad_(true);
  constexpr int kSteps = 4;
  manual_seed(7);
  std::vector<std::vector<double>> eager_z, eager_grad;
  for (int s = 0; s < kSteps; ++s) {
    eager_z.push_back(graph_dropout_step(x).to_vector());
    eager_grad.push_back(x.grad().to_vector());
  }
  const uint64_t eager_end = default_generator().offset();
  CHECK(eager_z[1] != eager_z[2]);  // the masks differ from step to step

  manual_seed(7);
  graph_dropout_step(x);  // step 1 eager
  const uint64_t before = default_generator().offset();
  Tensor z_out = zeros({37}, {.device = d}), grad_out = zeros({37}, {.device = d});
  cuda::Graph graph;
  graph.begin_capture(0);
  z_out.copy_(graph_dropout_step(x));
  grad_out.copy_(x.grad());
  graph.end_capture();
  CHECK(default_generator().offset() == before);  // the capture ran nothing, so drew nothing
  for (int s = 1; s < kSteps; ++s) {
    CAPTURE(s);
    graph.replay();
    CHECK(z_out.to_vector() == eager_z[s]);
    CHECK(grad_out.to_vector() == eager_grad[s]);
  }
  CHECK(default_generator().offset() == eager_end);

  manual_seed(8);  // a reseeded generator would not draw what the graph holds
  CHECK_THROWS_WITH_AS(graph.replay(), doctest::Contains("was reseeded (7 at the capture, 8 now)"), Error);
}

// `step` (returning the tensors to compare) run 4 times eagerly from seed 7, against one eager
// step from seed 7 and then the captured step replayed 3 times: equal values, bit for bit.
void graph_check_replays_draw_eager(const std::function<std::vector<Tensor>()>& step) {
  constexpr int kSteps = 4;
  auto values = [](const std::vector<Tensor>& ts) {
    std::vector<std::vector<double>> v;
    for (const Tensor& t : ts) v.push_back(t.to_vector());
    return v;
  };
  manual_seed(7);
  std::vector<std::vector<std::vector<double>>> eager;
  for (int s = 0; s < kSteps; ++s) eager.push_back(values(step()));
  const uint64_t eager_end = default_generator().offset();
  CHECK(eager[1] != eager[2]);  // the masks differ from step to step

  manual_seed(7);
  std::vector<Tensor> outs;
  for (const Tensor& t : step()) outs.push_back(zeros_like(t));
  cuda::Graph graph;
  graph.begin_capture(0);
  const std::vector<Tensor> captured = step();
  for (size_t i = 0; i < outs.size(); ++i) outs[i].copy_(captured[i]);
  graph.end_capture();
  for (int s = 1; s < kSteps; ++s) {
    CAPTURE(s);
    graph.replay();
    CHECK(values(outs) == eager[s]);
  }
  CHECK(default_generator().offset() == eager_end);
}

TEST_CASE("[cuda] replayed attention dropout draws eager's masks on every attention path") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  Tensor q = rand({2, 2, 5, 16}, {.device = d}), k = rand({2, 2, 7, 16}, {.device = d}),
         v = rand({2, 2, 7, 16}, {.device = d}), R = rand({16}, {.device = d});
  for (Tensor* t : {&q, &k, &v}) t->requires_grad_(true);
  auto grads_after = [&](const Tensor& out) {
    for (Tensor* t : {&q, &k, &v}) t->zero_grad();
    sum(mul(out, out)).backward();
    return std::vector<Tensor>{out, q.grad(), k.grad(), v.grad()};
  };
  for (cuda::SdpaPath path : {cuda::SdpaPath::Reference, cuda::SdpaPath::Flash, cuda::SdpaPath::Composed}) {
    CAPTURE(static_cast<int>(path));
    cuda::ScopedSdpaPath scoped(path);
    graph_check_replays_draw_eager([&] { return grads_after(scaled_dot_product_attention(q, k, v, {}, 0.3, true)); });
  }
  for (bool recompute : {false, true}) {
    CAPTURE(recompute);
    graph_check_replays_draw_eager(
        [&] { return grads_after(fourier_attention(q, k, v, R, 4, {}, 0.3, true, nullptr, recompute)); });
  }
}

TEST_CASE("[cuda] replayed uniform and normal draws are eager's, the generator's own seed or not") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  for (DType dt : {DType::Float32, DType::Float64}) {
    CAPTURE(dt);
    graph_check_replays_draw_eager([&] {
      return std::vector<Tensor>{uniform({5}, -1, 2, {.dtype = dt, .device = d}), randn({3, 3}, {.dtype = dt, .device = d})};
    });
  }
  Generator gen(11);  // a generator of its own advances as the default one does
  Generator eager_gen(11);
  const std::vector<double> first = rand({6}, {.dtype = DType::Float64, .device = d}, &eager_gen).to_vector();
  const std::vector<double> second = rand({6}, {.dtype = DType::Float64, .device = d}, &eager_gen).to_vector();
  Tensor out = zeros({6}, {.dtype = DType::Float64, .device = d});
  cuda::Graph graph;
  graph.begin_capture(0);
  out.copy_(rand({6}, {.dtype = DType::Float64, .device = d}, &gen));
  graph.end_capture();
  CHECK(gen.offset() == 0);  // the capture itself draws nothing
  graph.replay();
  CHECK(out.to_vector() == first);
  graph.replay();
  CHECK(out.to_vector() == second);
  CHECK(gen.offset() == eager_gen.offset());
}

TEST_CASE("[cuda] host reads, synchronisations and host copies raise during a capture") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  Tensor x = ones({3}, {.device = d});
  cuda::Graph graph;
  graph.begin_capture(0);
  CHECK_THROWS_WITH_AS(sum(x).item<double>(), doctest::Contains("[item] reads device memory on the host while a CUDA graph is being captured on cuda:0"), Error);
  CHECK_THROWS_WITH_AS(x.to_vector(), doctest::Contains("[to_vector]"), Error);
  CHECK_THROWS_WITH_AS(x.to(Device::cpu()), doctest::Contains("[to] reads device memory"), Error);
  CHECK_THROWS_WITH_AS(ones({3}).to(d), doctest::Contains("[to] copies a host tensor to the device"), Error);
  CHECK_THROWS_WITH_AS(cuda::synchronize(), doctest::Contains("[synchronize_device] waits for the device"), Error);
  cuda::Graph other;
  CHECK_THROWS_WITH_AS(other.begin_capture(0), doctest::Contains("already being captured"), Error);
  CHECK_THROWS_WITH_AS(graph.replay(), doctest::Contains("has not ended"), Error);
  graph.abort_capture();
  CHECK_FALSE(cuda::capturing(0));
  CHECK(sum(x).item<double>() == 3.0);  // outside the capture the same reads work
  CHECK_THROWS_WITH_AS(graph.replay(), doctest::Contains("nothing captured"), Error);
}

TEST_CASE("[cuda] a graph's memory pool never hands its blocks to other tensors while the graph lives") {
  announce_targets();
  if (!cuda::available()) return;
  const Device d = Device::cuda(0);
  const int64_t n = 12345;  // a size class of its own in this process
  Tensor before = empty({n}, {.device = d});
  const void* before_block = before.raw_data();
  const cuda::AllocatorStats start = cuda::allocator_stats(0);
  const void *kept_block = nullptr, *temp_block = nullptr;
  Tensor kept;
  {
    cuda::Graph graph;
    graph.begin_capture(0);
    kept = empty({n}, {.device = d});  // lives on after the capture
    kept_block = kept.raw_data();
    Tensor temp = empty({n}, {.device = d});
    temp_block = temp.raw_data();
    temp = Tensor();    // freed during the capture: the graph's pool keeps it
    before = Tensor();  // allocated before, freed during the capture: the pool keeps it too
    graph.end_capture();
    CHECK(cuda::allocator_stats(0).graph_pools >= 2 * cuda::allocation_size_class(n * 4));
    kept = Tensor();  // freed after the capture: back to the graph's pool
    for (int i = 0; i < 4; ++i) {
      Tensor other = empty({n}, {.device = d});
      CHECK(other.raw_data() != kept_block);
      CHECK(other.raw_data() != temp_block);
      CHECK(other.raw_data() != before_block);
    }
  }
  // The graph is gone: its blocks are the cache's again.
  CHECK(cuda::allocator_stats(0).graph_pools == start.graph_pools);
  const uint64_t hits = cuda::allocator_stats(0).cache_hits;
  Tensor again = empty({n}, {.device = d});
  CHECK(cuda::allocator_stats(0).cache_hits == hits + 1);
}

}  // namespace hm::test

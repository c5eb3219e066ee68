// Index checks on a CUDA device inside a DeferredChecks scope (cuda/runtime/deferred_checks.h):
// the ops do not wait for the device, and the first failed check throws the CPU's error at the
// host's next wait. On the emulated device without a GPU (ctest runs the [cuda] cases under it).
#include <doctest/doctest.h>

#include <vector>

#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/harmonic.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"

namespace hm::test {
namespace {

Tensor indices(const std::vector<int64_t>& v, Shape shape, Device device) {
  return from_vector(v, std::move(shape)).to(device);
}

Tensor table(const Shape& shape, uint64_t seed, Device device) {
  Generator gen(seed);
  return randn(shape, {}, &gen).to(device);
}

}  // namespace

TEST_CASE("[cuda] a deferred index check waits for nothing and throws the CPU's error at the next wait") {
  announce_targets();
  if (!cuda::available()) return;
  if (!cuda::index_checks_deferrable()) return;  // HARMONIC_DEFER_INDEX_CHECKS=0: checks throw at their op
  const Device cuda0 = Device::cuda(0);
  const Tensor x = table({4, 5}, 1, cuda0), w = table({9, 3}, 2, cuda0), logits = table({3, 6}, 3, cuda0);
  const Tensor bad_gather = indices({0, 1, -3, 2, 0, 9}, {2, 3}, cuda0);
  const Tensor bad_rows = indices({1, 9}, {2}, cuda0);
  const Tensor bad_targets = indices({2, 6, -100}, {3}, cuda0);
  const uint64_t before = cuda::host_waits(0);
  Tensor g, e, ce, nll, oh, sa, ia;
  {
    cuda::DeferredChecks deferred("the unit test's step");
    g = gather(x, 1, bad_gather);  // the first failure: its error is the one thrown
    e = embedding(w, bad_rows);
    ce = cross_entropy(logits, bad_targets);
    nll = nll_loss(logits, bad_targets);
    oh = one_hot(bad_rows, 4);
    sa = scatter_add(x, 0, bad_gather, table({2, 3}, 4, cuda0));
    ia = index_add(x, 0, bad_rows, table({2, 5}, 5, cuda0));
  }
  CHECK(cuda::host_waits(0) == before);
  CHECK(cuda::pending_checks(0) == 7);
  CHECK(throws_with([&] { ce.to(Device::cpu()); },
                    {"[gather]", "index -3 is out of range for dim 1 of size 5", "the unit test's step", "cuda:0"}));
  // The verdicts were read: the device works on, and the next read has nothing to report.
  CHECK(cuda::pending_checks(0) == 0);
  CHECK(same_values(table({4, 5}, 1, Device::cpu()), x.to(Device::cpu())));
}

TEST_CASE("[cuda] deferred checks report the first failure in the order the ops ran, each op's own message") {
  announce_targets();
  if (!cuda::available()) return;
  if (!cuda::index_checks_deferrable()) return;  // HARMONIC_DEFER_INDEX_CHECKS=0: checks throw at their op
  const Device cuda0 = Device::cuda(0);
  const Tensor w = table({9, 3}, 2, cuda0), logits = table({3, 6}, 3, cuda0);
  const Tensor good_rows = indices({1, 8}, {2}, cuda0), bad_rows = indices({1, 9}, {2}, cuda0);
  {
    cuda::DeferredChecks deferred("step 1");
    embedding(w, good_rows);
    cross_entropy(logits, indices({2, 7, -100}, {3}, cuda0));
    embedding(w, bad_rows);
  }
  CHECK(throws_with([&] { cuda::synchronize_device(0); },
                    {"[cross_entropy]", "target 7 at position 1 is out of range for 6 classes", "step 1"}));
  {
    cuda::DeferredChecks deferred("step 2");
    embedding(w, bad_rows);
  }
  CHECK(throws_with([&] { w.to(Device::cpu()); },
                    {"[embedding]", "index 9 at position 1 is out of range for 9 rows", "step 2"}));
  {
    cuda::DeferredChecks deferred("step 3");
    one_hot(indices({0, 3, 5, 1}, {4}, cuda0), 4);
  }
  CHECK(throws_with([&] { w.to(Device::cpu()); },
                    {"[one_hot]", "class value 5 (at flat position 2) is out of range [0, 4)", "step 3"}));
  // Outside a scope the checks throw at once, as on the CPU.
  CHECK(throws_with([&] { embedding(w, bad_rows); }, {"[embedding]", "index 9"}));
  CHECK(cuda::pending_checks(0) == 0);
}

TEST_CASE("[cuda] cross_entropy and nll_loss keep their divisor on the device: no wait, the CPU's values") {
  announce_targets();
  if (!cuda::available()) return;
  const Device cuda0 = Device::cuda(0);
  const std::vector<int64_t> t = {2, -100, 5, 0, -100};
  for (Reduction r : {Reduction::Mean, Reduction::Sum}) {
    CAPTURE(static_cast<int>(r));
    const CrossEntropyOptions opt{.label_smoothing = 0.1, .reduction = r};
    Tensor ref_logits = table({5, 6}, 7, Device::cpu()).requires_grad_(true);
    Tensor ref = cross_entropy(ref_logits, indices(t, {5}, Device::cpu()), opt);
    ref.backward();
    Tensor logits = ref_logits.detach().to(cuda0).requires_grad_(true);
    const uint64_t before = cuda::host_waits(0);
    Tensor loss;
    {
      cuda::DeferredChecks deferred("the loss");
      loss = cross_entropy(logits, indices(t, {5}, cuda0), opt);
      loss.backward();
      nll_loss(log_softmax(logits, 1), indices(t, {5}, cuda0), {.reduction = r}).backward();
    }
    CHECK(cuda::host_waits(0) == before);
    CHECK(loss.item<double>() == doctest::Approx(ref.item<double>()).epsilon(1e-6));
    Tensor ref_nll_logits = ref_logits.detach().requires_grad_(true);
    nll_loss(log_softmax(ref_nll_logits, 1), indices(t, {5}, Device::cpu()), {.reduction = r}).backward();
    const Tensor expected = add(ref_logits.grad(), ref_nll_logits.grad());
    CHECK(allclose(expected, logits.grad().to(Device::cpu()), 1e-5, 1e-6));
  }
}

}  // namespace hm::test

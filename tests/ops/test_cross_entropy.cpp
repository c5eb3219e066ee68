// cross_entropy and nll_loss.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

// Reference: lg = torch.sin(torch.arange(20, dtype=torch.float64) * 0.7).reshape(4, 5) * 2;
// F.cross_entropy(lg, [1, 0, 4, 2]); F.cross_entropy(lg, t2 = [1, 2, 4, 2], ignore_index=2, label_smoothing=0.1,
// reduction=mean/sum/none); F.cross_entropy(lg3, t3, label_smoothing=0.2, reduction=mean/none) with
// t3 = [[0, 2, -100, 1], [2, 2, 0, -100]]; F.nll_loss(torch.log_softmax(lg, 1), t2, ignore_index=2, mean/none)
TEST_CASE("cross_entropy / nll_loss: values vs PyTorch with ignore_index, smoothing, class dim") {
  Tensor lg = wave({4, 5}, 0.7, 2.0);
  CHECK(allclose(cross_entropy(lg, ints({1, 0, 4, 2}, {4})), {2.4350627}));
  Tensor t2 = ints({1, 2, 4, 2}, {4});
  CrossEntropyOptions opt{.ignore_index = 2, .label_smoothing = 0.1};
  CHECK(allclose(cross_entropy(lg, t2, opt), {2.5943888}));
  opt.reduction = Reduction::Sum;
  CHECK(allclose(cross_entropy(lg, t2, opt), {5.1887776}));
  opt.reduction = Reduction::None;
  CHECK(allclose(cross_entropy(lg, t2, opt), {1.6914793, 0, 3.4972983, 0}));

  Tensor lg3 = wave({2, 3, 4}, 0.9, 1.5);
  Tensor t3 = ints({0, 2, -100, 1, 2, 2, 0, -100}, {2, 4});
  CHECK(allclose(cross_entropy(lg3, t3, {.label_smoothing = 0.2}), {1.4596669}));
  Tensor none3 = cross_entropy(lg3, t3, {.label_smoothing = 0.2, .reduction = Reduction::None});
  CHECK(none3.shape() == Shape{2, 4});
  CHECK(allclose(none3, {1.5342576, 0.80660035, 0, 1.2129845, 2.5486004, 1.137454, 1.5181046, 0}));
  // The class dim is an option: classes last gives the same losses.
  Tensor last = permute(lg3, {0, 2, 1});  // (2, 4, 3), non-contiguous
  CHECK(allclose(cross_entropy(last, t3, {.label_smoothing = 0.2, .class_dim = -1}), {1.4596669}));
  // Float32 matches float64.
  CHECK(allclose(cross_entropy(lg3.to(DType::Float32), t3, {.label_smoothing = 0.2}), {1.4596669}, 1e-6, 1e-6));
  // Unbatched logits (C) with a 0-d target: F.cross_entropy(lg[0], torch.tensor(1)).
  CHECK(allclose(cross_entropy(select(lg, 0, 0), from_vector<int64_t>({1}, {})), {1.6757503}));

  Tensor lp = log_softmax(lg, 1);
  CHECK(allclose(nll_loss(lp, t2, {.ignore_index = 2}), {2.6722197}));
  CHECK(allclose(nll_loss(lp, t2, {.ignore_index = 2, .reduction = Reduction::None}), {1.6757503, 0, 3.6686891, 0}));
  // Every target ignored: the mean is 0/0 = NaN, like PyTorch.
  CHECK(std::isnan(cross_entropy(lg, ints({3, 3, 3, 3}, {4}), {.ignore_index = 3}).item<double>()));
}

TEST_CASE("cross_entropy / nll_loss: gradcheck over options") {
  Tensor t = ints({1, 2, 4, 2}, {4});
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    for (double eps : {0.0, 0.3}) {
      CrossEntropyOptions opt{.ignore_index = 2, .label_smoothing = eps, .reduction = r};
      CHECK(gradcheck([&](const Inputs& in) { return cross_entropy(in[0], in[1], opt); }, {leaf64({4, 5}, 1), t}));
    }
  Tensor t3 = ints({0, 2, -100, 1, 2, 2, 0, -100}, {2, 4});
  CHECK(gradcheck([&](const Inputs& in) { return cross_entropy(in[0], in[1], {.label_smoothing = 0.2}); },
                  {leaf64({2, 3, 4}, 2), t3}));
  CHECK(gradcheck(
      [&](const Inputs& in) {
        return cross_entropy(in[0], in[1], {.label_smoothing = 0.1, .class_dim = 2, .reduction = Reduction::None});
      },
      {leaf64({2, 4, 3}, 3), t3}));
  CHECK(gradcheck([&](const Inputs& in) { return nll_loss(in[0], in[1], {.ignore_index = 2}); }, {leaf64({4, 5}, 4), t}));
  CHECK(gradcheck([&](const Inputs& in) { return nll_loss(in[0], in[1], {.reduction = Reduction::None}); },
                  {leaf64({2, 3, 4}, 5), ints({0, 2, 1, 1, 2, 2, 0, 0}, {2, 4})}));
}

TEST_CASE("cross_entropy / nll_loss: bad targets") {
  Tensor lg = zeros({4, 5});
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 7, 0, 0}, {4})); }, {"[cross_entropy]", "target 7", "5 classes"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, -1, 0, 0}, {4})); }, {"[cross_entropy]", "target -1"}));
  CHECK(throws_with([&] { cross_entropy(lg, zeros({4})); }, {"[cross_entropy]", "int64", "float32"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 2, 3}, {3})); }, {"[cross_entropy]", "(3,)", "(4, 5)"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 2, 3, 4}, {4}), {.label_smoothing = 1.5}); },
                    {"[cross_entropy]", "1.5"}));
  CHECK(throws_with([&] { nll_loss(lg, ints({1, 2, 3, 5}, {4})); }, {"[nll_loss]", "target 5"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] cross_entropy and nll_loss match the CPU") {
  announce_targets();
  Tensor logits = normal({6, 5}, 51), target = class_targets({6}, 5, 52, 4);  // two ignored
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    for (double eps : {0.0, 0.2}) {
      CrossEntropyOptions o{.label_smoothing = eps, .reduction = r};
      check_against_cpu("cross_entropy", [&](auto& in) { return cross_entropy(in[0], in[1], o); }, {logits, target});
      if (eps == 0.0)
        check_against_cpu("nll_loss", [&](auto& in) { return nll_loss(log_softmax(in[0], 1), in[1], o); },
                          {logits, target});
    }
  // (N, C, d) with the class dim in the middle (column kernels), and long rows.
  Tensor l3 = normal({2, 4, 3}, 53), t3 = class_targets({2, 3}, 4, 54, 5);
  check_against_cpu("cross_entropy (N, C, d)",
                    [&](auto& in) { return cross_entropy(in[0], in[1], {.label_smoothing = 0.1}); }, {l3, t3});
  check_against_cpu("nll_loss (N, C, d)", [&](auto& in) { return nll_loss(in[0], in[1]); }, {l3, t3});
  check_against_cpu(
      "cross_entropy long rows", [&](auto& in) { return cross_entropy(in[0], in[1]); },
      {normal({3, 1300}, 55, DType::Float32), class_targets({3}, 1300, 56)}, 1e-10);
  check_against_cpu("cross_entropy all ignored", [&](auto& in) { return cross_entropy(in[0], in[1]); },
                    {logits, full({6}, -100.0, {.dtype = DType::Int64})});  // 0/0 = NaN on both
  for_each_device([&](const Target& t) {
    Tensor bad = from_vector(std::vector<int64_t>{0, 7, 1, 2, 3, 4}, {6}).to(t.device);
    CHECK(throws_with([&] { cross_entropy(logits.to(t.device), bad); }, {"[cross_entropy]", "target 7", "position 1"}));
    CHECK(throws_with([&] { nll_loss(logits.to(t.device), bad); }, {"[nll_loss]", "target 7"}));
  });
}

}  // namespace cuda_cases

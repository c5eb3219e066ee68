// The optimizers' CUDA kernels against the CPU.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] sgd and adam kernels match the CPU") {
  announce_targets();
  for (DType dt : {DType::Float32, DType::Float64}) {
    const Tensor p0 = normal({37}, 91, dt), g = normal({37}, 92, dt), s0 = abs(normal({37}, 93, dt));
    auto sgd_steps = [&](Device dev, bool nesterov) {
      Tensor p = p0.to(dev).clone(), buf = Tensor::empty({37}, dt, dev), gd = g.to(dev);
      for (int step = 0; step < 3; ++step)
        optim::sgd_kernel(dev, p, gd, buf,
                          {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = nesterov, .first = step == 0});
      optim::sgd_kernel(dev, p, gd, Tensor(), {.lr = 0.05, .maximize = true});  // no momentum
      return p.to(Device::cpu());
    };
    auto adam_steps = [&](Device dev, bool amsgrad, bool decoupled) {
      Tensor p = p0.to(dev).clone(), m = zeros({37}, {.dtype = dt, .device = dev});
      Tensor v = s0.to(dev).clone(), vmax = zeros({37}, {.dtype = dt, .device = dev}), gd = g.to(dev);
      for (int64_t step = 1; step <= 3; ++step)
        optim::adam_kernel(dev, p, gd, m, v, amsgrad ? vmax : Tensor(),
                           {.lr = 1e-2, .weight_decay = 0.1, .step = step, .decoupled = decoupled, .amsgrad = amsgrad});
      return cat({p, m, v}).to(Device::cpu());
    };
    for_each_device([&](const Target& t) {
      INFO(t.name << " " << dtype_name(dt));
      for (bool nesterov : {false, true})
        check_close(on_cpu([&] { return sgd_steps(Device::cpu(), nesterov); }), sgd_steps(t.device, nesterov), "sgd",
                    1e-12);
      for (bool amsgrad : {false, true})
        for (bool decoupled : {false, true})
          check_close(on_cpu([&] { return adam_steps(Device::cpu(), amsgrad, decoupled); }),
                      adam_steps(t.device, amsgrad, decoupled), "adam", 1e-12);
    });
  }
}

TEST_CASE("[cuda] three AdamW training steps of a small network match the CPU") {
  // embedding -> layer_norm -> linear -> dropout -> cross_entropy, AdamW: every kernel of
  // this file in one graph, compared after three updates (float64).
  announce_targets();
  const Tensor table0 = normal({11, 8}, 101), w0 = normal({5, 8}, 102), b0 = normal({5}, 103);
  const Tensor ln_w0 = normal({8}, 104), tokens = class_targets({3, 4}, 11, 105),
               labels = class_targets({3, 4}, 5, 106);
  auto train = [&](Device dev) {
    auto param = [&](const Tensor& v) { return v.detach().to(dev).detach().clone().requires_grad_(true); };
    Tensor table = param(table0), w = param(w0), b = param(b0), ln_w = param(ln_w0);
    optim::AdamW opt({table, w, b, ln_w}, {.lr = 0.05});
    Generator gen(5);
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      Tensor h = layer_norm(embedding(table, tokens.to(dev)), {8}, ln_w);  // (3, 4, 8)
      Tensor logits = dropout(linear(h, w, b), 0.2, true, &gen);           // (3, 4, 5)
      cross_entropy(logits, labels.to(dev), {.label_smoothing = 0.1, .class_dim = -1}).backward();
      opt.step();
    }
    return cat({flatten(table.detach()), flatten(w.detach()), b.detach(), ln_w.detach()}).to(Device::cpu());
  };
  const Tensor ref = train(Device::cpu());
  for_each_device([&](const Target& t) { check_close(ref, train(t.device), "trained parameters on " + t.name); });
}

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
#include "harmonic/ops/shape_views.h"
#include "harmonic/optim/adam.h"
#include "harmonic/optim/clip.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

namespace {
// Tensors of odd sizes, one above a multi-tensor chunk (65536) and one above the launch's
// tensor table (24 entries), so batches split a tensor and start new tables.
std::vector<Tensor> optim_cuda_list(DType dt, uint64_t seed, int count, bool positive = false) {
  std::vector<Tensor> out;
  for (int k = 0; k < count; ++k) {
    const int64_t n = k == 3 ? 140001 : k == 5 ? 0 : 1 + 37 * k;
    Tensor t = normal({n}, seed * 100 + k, dt);
    out.push_back(positive ? abs(t) : t);
  }
  return out;
}

std::vector<Tensor> optim_cuda_to(const std::vector<Tensor>& ts, Device dev) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.to(dev).clone());
  return out;
}

Tensor optim_cuda_cat(const std::vector<Tensor>& ts) {
  std::vector<Tensor> cpu;
  for (const Tensor& t : ts) cpu.push_back(t.to(Device::cpu()).to(DType::Float64));
  return cat(cpu);
}
}  // namespace

TEST_CASE("[cuda] multi-tensor sgd and adam kernels match the CPU, capturable equal to plain bit for bit") {
  announce_targets();
  const int count = 30;
  for (DType dt : {DType::Float32, DType::Float64}) {
    const std::vector<Tensor> p0 = optim_cuda_list(dt, 1, count), g = optim_cuda_list(dt, 2, count),
                              s0 = optim_cuda_list(dt, 3, count, true);
    std::vector<int32_t> slots;
    for (int k = 0; k < count; ++k) slots.push_back(count - 1 - k);
    // capturable: a [lr, steps...] table; the steps start at 2, so the first update is step 3.
    auto schedule = [&](Device dev, bool capturable) {
      if (!capturable) return optim::DeviceSchedule{};
      std::vector<double> table(count + 1, 2.0);
      table[0] = 1e-2;
      return optim::DeviceSchedule{from_vector(table, {count + 1}).to(dev), slots};
    };
    auto sgd_steps = [&](Device dev, bool nesterov, bool capturable) {
      optim::SgdLists l{optim_cuda_to(p0, dev), optim_cuda_to(g, dev), optim_cuda_to(s0, dev)};
      const optim::DeviceSchedule sched = schedule(dev, capturable);
      for (int step = 0; step < 3; ++step)
        optim::sgd_kernel(dev, l, {.lr = 1e-2, .momentum = 0.9, .weight_decay = 0.01, .nesterov = nesterov, .first = step == 0},
                          sched);
      l.momentum_buffers.clear();
      optim::sgd_kernel(dev, l, {.lr = 1e-2, .maximize = true}, sched);  // no momentum
      std::vector<Tensor> out = l.params;
      if (capturable) out.push_back(sched.table);
      return optim_cuda_cat(out);
    };
    auto adam_steps = [&](Device dev, bool amsgrad, bool decoupled, bool capturable) {
      optim::AdamLists l{optim_cuda_to(p0, dev), optim_cuda_to(g, dev), optim_cuda_to(p0, dev), optim_cuda_to(s0, dev),
                         amsgrad ? optim_cuda_to(s0, dev) : std::vector<Tensor>{}};
      const optim::DeviceSchedule sched = schedule(dev, capturable);
      for (int64_t step = 3; step <= 5; ++step)
        optim::adam_kernel(
            dev, l, {.lr = 1e-2, .weight_decay = 0.1, .step = step, .decoupled = decoupled, .amsgrad = amsgrad}, sched);
      std::vector<Tensor> out = l.params;
      for (const Tensor& t : l.exp_avg_sq) out.push_back(t);
      if (capturable) out.push_back(sched.table);
      return optim_cuda_cat(out);
    };
    for_each_device([&](const Target& t) {
      INFO(t.name << " " << dtype_name(dt));
      // The twins are compiled by nvcc's host pass, whose loops may contract a*b+c into fma
      // where the CPU kernel's do not (and a GPU's pow may differ): close, not identical.
      const bool exact = false;
      auto compare = [&](const Tensor& ref, const Tensor& got, const char* what) {
        if (exact)
          CHECK(same_values(ref, got));
        else
          check_close(ref, got, what, 1e-12);
      };
      for (bool capturable : {false, true})
        for (bool nesterov : {false, true})
          compare(on_cpu([&] { return sgd_steps(Device::cpu(), nesterov, capturable); }),
                  sgd_steps(t.device, nesterov, capturable), "sgd");
      for (bool capturable : {false, true})
        for (bool amsgrad : {false, true})
          for (bool decoupled : {false, true}) {
            const Tensor ref = on_cpu([&] { return adam_steps(Device::cpu(), amsgrad, decoupled, capturable); });
            compare(ref, adam_steps(t.device, amsgrad, decoupled, capturable), "adam");
          }
      // Capturable equals plain (the tables' steps, 2 + 3 updates each, are cut off first).
      const Tensor plain = adam_steps(t.device, false, true, false);
      const Tensor cap = adam_steps(t.device, false, true, true);
      CHECK(same_values(plain, narrow(cap, 0, 0, plain.numel())));
      CHECK(narrow(cap, 0, plain.numel(), count + 1).to_vector() == [&] {
        std::vector<double> v(count + 1, 5.0);
        v[0] = 1e-2;
        return v;
      }());
    });
  }
}

TEST_CASE("[cuda] clip_grad_norm_ of norm 2 matches the CPU bit for bit") {
  announce_targets();
  const std::vector<Tensor> g32 = optim_cuda_list(DType::Float32, 4, 27), g64 = optim_cuda_list(DType::Float64, 5, 3);
  auto clip = [&](Device dev, double max_norm) {
    std::vector<Tensor> params;
    for (const auto* list : {&g32, &g64})
      for (const Tensor& g : *list) {
        Tensor p = zeros_like(g).to(dev).requires_grad_(true);
        p.set_grad(g.to(dev).clone());
        params.push_back(p);
      }
    params.push_back(zeros({3}, {.device = dev, .requires_grad = true}));  // no gradient
    const Tensor total = optim::clip_grad_norm_on_device_(params, max_norm);
    std::vector<Tensor> out{reshape(total, {1})};
    for (const Tensor& p : params)
      if (p.grad().defined()) out.push_back(p.grad().to(DType::Float64));
    return optim_cuda_cat(out);
  };
  for_each_device([&](const Target& t) {
    INFO(t.name);
    for (double max_norm : {1.0, 1e6}) {
      const Tensor ref = on_cpu([&] { return clip(Device::cpu(), max_norm); });
      if (t.emulate)
        CHECK(same_values(ref, clip(t.device, max_norm)));
      else
        check_close(ref, clip(t.device, max_norm), "clip", 1e-14);
    }
  });
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

// Grad-ready hooks: a leaf's hook is told when the leaf's .grad is final for the current
// backward pass, i.e. every reachable op that feeds the leaf has added its gradient. PyTorch
// calls them post-accumulate-grad hooks; data-parallel training starts a leaf's all-reduce
// from here while backward goes on (nn/distributed/data_parallel.h).
//
//   autograd::register_grad_ready_hook(w, [](const Tensor& w) { use(w.grad()); });
//
// Hooks run on the thread running backward, in the order backward finishes the leaves (the
// last layer's first), once per pass that reaches the leaf; not at all when it does not.
#pragma once
#include <functional>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::autograd {

using GradReadyHook = std::function<void(const Tensor& leaf)>;

// `leaf` must be a leaf that requires grad. The hook lives as long as the leaf.
void register_grad_ready_hook(const Tensor& leaf, GradReadyHook hook);

// The hooks of a leaf (empty when none), for the engine.
std::vector<GradReadyHook> grad_ready_hooks(const TensorImpl* leaf);
// True when any live leaf has a hook (the engine's fast path skips the bookkeeping otherwise).
bool any_grad_ready_hooks();

}  // namespace hm::autograd

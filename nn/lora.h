// LoRA (Hu et al. 2021): a frozen Linear plus a trainable low-rank update,
//   y = x W^T + b + (dropout(x) A^T B^T) * alpha / r,
// with A (r, in) ~ kaiming_uniform(a = sqrt(5)) and B (out, r) = 0, so the wrapped layer
// starts out computing exactly what the base computes. merge() folds the update into the
// weight for inference; unmerge() takes it back out.
//
// LoRALinear is a Linear (as loralib's lora.Linear is an nn.Linear): it adopts the base
// layer's weight and bias as its own (shared, frozen), so it fits wherever a model holds a
// std::shared_ptr<Linear>, and apply_lora swaps it into a trained model in place.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "harmonic/core/random.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/linear.h"

namespace hm::nn {

class LoRALinear : public Linear {
 public:
  // Freezes base's parameters (requires_grad false) and shares them. State names: "weight",
  // "bias" (the base's), "lora_A", "lora_B".
  LoRALinear(const std::shared_ptr<Linear>& base, int64_t rank, double alpha, double dropout = 0.0,
             Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;  // (..., in) -> (..., out)

  void merge();    // W += (alpha / r) B A; forward then runs the plain Linear
  void unmerge();  // W -= (alpha / r) B A
  bool merged() const { return merged_; }
  double scaling() const { return alpha / static_cast<double>(rank); }

  int64_t rank;
  double alpha;
  Tensor lora_A;  // (r, in)
  Tensor lora_B;  // (out, r)

 private:
  std::shared_ptr<Dropout> dropout_;  // a child, so train()/eval() reach it
  bool merged_ = false;
};

// Replaces every Linear under root whose hierarchical name (e.g. "transformer.layers.0.
// self_attn.q_proj") satisfies wrap by a LoRALinear over it, in place (Module::
// replace_module), and returns how many it wrapped. Linears already wrapped are skipped. The
// rest of the model is untouched: call mark_only_lora_as_trainable to freeze it.
int64_t apply_lora(Module& root, const std::function<bool(const std::string&)>& wrap, int64_t rank, double alpha,
                   double dropout = 0.0, Generator* gen = nullptr);

// Freezes every parameter of root whose hierarchical name has no "lora_" component (the
// loralib helper of the same name); returns the number of parameters left trainable.
int64_t mark_only_lora_as_trainable(Module& root);

}  // namespace hm::nn

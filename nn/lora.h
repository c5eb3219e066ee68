// LoRA (Hu et al. 2021): a frozen Linear plus a trainable low-rank update,
//   y = base(x) + (dropout(x) A^T B^T) * alpha / r,
// with A (r, in) ~ kaiming_uniform(a = sqrt(5)) and B (out, r) = 0, so the wrapped layer
// starts out computing exactly what the base computes. merge() folds the update into the
// base weight for inference; unmerge() takes it back out.
#pragma once
#include <memory>

#include "core/random.h"
#include "nn/dropout.h"
#include "nn/linear.h"

namespace hm::nn {

class LoRALinear : public UnaryModule {
 public:
  // Freezes base's parameters (requires_grad false). State names: "base.weight",
  // "base.bias", "lora_A", "lora_B".
  LoRALinear(std::shared_ptr<Linear> base, int64_t rank, double alpha, double dropout = 0.0, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;  // (..., in) -> (..., out)

  void merge();    // W += (alpha / r) B A; forward then runs the base alone
  void unmerge();  // W -= (alpha / r) B A
  bool merged() const { return merged_; }
  double scaling() const { return alpha / static_cast<double>(rank); }

  std::shared_ptr<Linear> base;
  int64_t rank;
  double alpha;
  Tensor lora_A;  // (r, in)
  Tensor lora_B;  // (out, r)

 private:
  std::shared_ptr<Dropout> dropout_;  // a child, so train()/eval() reach it
  bool merged_ = false;
};

// Freezes every parameter of root whose hierarchical name has no "lora_" component (the
// loralib helper of the same name); returns the number of parameters left trainable.
int64_t mark_only_lora_as_trainable(Module& root);

}  // namespace hm::nn

#include "nn/lora.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "core/factories.h"
#include "nn/init.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"

namespace hm::nn {

LoRALinear::LoRALinear(std::shared_ptr<Linear> base_, int64_t r, double alpha_, double dropout, Generator* gen)
    : UnaryModule("LoRALinear"), base(std::move(base_)), rank(r), alpha(alpha_) {
  check(base != nullptr, "LoRALinear", "base Linear is null");
  check(r > 0 && r <= std::min(base->in_features, base->out_features), "LoRALinear",
        "rank must be in [1, min(in, out)] = [1, {}] for {}, got {}", std::min(base->in_features, base->out_features),
        base->type_name(), r);
  register_module("base", base);
  for (auto& [name, p] : base->named_parameters()) {
    p.zero_grad();
    p.requires_grad_(false);
  }
  // A and B take the base weight's dtype and device, so wrapping a converted model works.
  TensorOptions opt{.dtype = base->weight.dtype(), .device = base->weight.device()};
  lora_A = register_parameter("lora_A", kaiming_uniform_(empty({r, base->in_features}, opt), std::sqrt(5.0), gen));
  lora_B = register_parameter("lora_B", zeros({base->out_features, r}, opt));
  dropout_ = register_module("lora_dropout", std::make_shared<Dropout>(dropout, gen));
}

Tensor LoRALinear::forward(const Tensor& x) {
  Tensor y = base->forward(x);  // (..., out)
  if (merged_) return y;
  Tensor update = linear(linear(dropout_->forward(x), lora_A), lora_B);  // (..., r) -> (..., out)
  return y + update * scaling();
}

void LoRALinear::merge() {
  check(!merged_, "LoRALinear::merge", "already merged");
  NoGradGuard no_grad;
  add_(base->weight, matmul(lora_B, lora_A), scaling());  // (out, r) @ (r, in)
  merged_ = true;
}

void LoRALinear::unmerge() {
  check(merged_, "LoRALinear::unmerge", "not merged");
  NoGradGuard no_grad;
  add_(base->weight, matmul(lora_B, lora_A), -scaling());
  merged_ = false;
}

int64_t mark_only_lora_as_trainable(Module& root) {
  int64_t trainable = 0;
  for (auto& [name, p] : root.named_parameters()) {
    bool is_lora = name.rfind("lora_", 0) == 0 || name.find(".lora_") != std::string::npos;
    if (!is_lora) {
      p.zero_grad();
      p.requires_grad_(false);
    } else {
      trainable += p.numel();
    }
  }
  return trainable;
}

}  // namespace hm::nn

#include "harmonic/nn/lora.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"

namespace hm::nn {
namespace {

const Linear& checked(const std::shared_ptr<Linear>& base) {
  check(base != nullptr, "LoRALinear", "base Linear is null");
  return *base;
}

}  // namespace

LoRALinear::LoRALinear(const std::shared_ptr<Linear>& base, int64_t r, double alpha_, double dropout,
                       Generator* gen)
    : Linear("LoRALinear", checked(base).weight, checked(base).bias),  // checked: argument order is unspecified
      rank(r),
      alpha(alpha_) {
  check(r > 0 && r <= std::min(in_features, out_features), "LoRALinear",
        "rank must be in [1, min(in, out)] = [1, {}] for {}, got {}", std::min(in_features, out_features),
        base->type_name(), r);
  for (auto& [name, p] : named_parameters()) {
    p.zero_grad();
    p.requires_grad_(false);
  }
  // A and B take the base weight's dtype and device, so wrapping a converted model works.
  TensorOptions opt{.dtype = weight.dtype(), .device = weight.device()};
  lora_A = register_parameter("lora_A", kaiming_uniform_(empty({r, in_features}, opt), std::sqrt(5.0), gen));
  lora_B = register_parameter("lora_B", zeros({out_features, r}, opt));
  dropout_ = register_module("lora_dropout", std::make_shared<Dropout>(dropout, gen));
}

Tensor LoRALinear::forward(const Tensor& x) {
  Tensor y = Linear::forward(x);  // (..., out)
  if (merged_) return y;
  Tensor update = linear(linear(dropout_->forward(x), lora_A), lora_B);  // (..., r) -> (..., out)
  return y + update * scaling();
}

void LoRALinear::merge() {
  check(!merged_, "LoRALinear::merge", "already merged");
  NoGradGuard no_grad;
  add_(weight, matmul(lora_B, lora_A), scaling());  // (out, r) @ (r, in)
  merged_ = true;
}

void LoRALinear::unmerge() {
  check(merged_, "LoRALinear::unmerge", "not merged");
  NoGradGuard no_grad;
  add_(weight, matmul(lora_B, lora_A), -scaling());
  merged_ = false;
}

namespace {

int64_t apply_lora_under(Module& module, const std::string& prefix, const std::function<bool(const std::string&)>& wrap,
                         int64_t rank, double alpha, double dropout, Generator* gen) {
  int64_t wrapped = 0;
  for (const auto& [name, child] : module.named_children()) {
    const std::string full = prefix + name;
    auto linear = std::dynamic_pointer_cast<Linear>(child);
    if (linear && !std::dynamic_pointer_cast<LoRALinear>(child) && wrap(full)) {
      module.replace_module(name, std::make_shared<LoRALinear>(linear, rank, alpha, dropout, gen));
      ++wrapped;
    } else {
      wrapped += apply_lora_under(*child, full + ".", wrap, rank, alpha, dropout, gen);
    }
  }
  return wrapped;
}

}  // namespace

int64_t apply_lora(Module& root, const std::function<bool(const std::string&)>& wrap, int64_t rank, double alpha,
                   double dropout, Generator* gen) {
  check(static_cast<bool>(wrap), "apply_lora", "the name predicate is empty");
  return apply_lora_under(root, "", wrap, rank, alpha, dropout, gen);
}

int64_t mark_only_lora_as_trainable(Module& root) {
  int64_t trainable = 0;
  for (auto& [name, p] : root.named_parameters()) {
    bool is_lora = name.starts_with("lora_") || name.find(".lora_") != std::string::npos;
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

// Gradient clipping, composed from the reduction and elementwise ops so it runs on any
// device; only the total norm (one scalar) comes back to the host.
#include "harmonic/optim/clip.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::optim {

namespace {
std::vector<Tensor> defined_grads(const std::vector<Tensor>& params, std::string_view fn) {
  std::vector<Tensor> grads;
  for (size_t i = 0; i < params.size(); ++i) {
    check(params[i].defined(), fn, "parameter {} is undefined", i);
    Tensor g = params[i].grad();
    if (g.defined()) grads.push_back(g);
  }
  return grads;
}
}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  check(max_norm >= 0, "clip_grad_norm_", "invalid max_norm {} (must be >= 0)", max_norm);
  check(norm_type > 0, "clip_grad_norm_", "invalid norm_type {} (must be > 0 or inf)", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(params, "clip_grad_norm_");
  if (grads.empty()) return 0.0;
  // Per-tensor norms in their own dtype, combined in float64 (grads may mix dtypes).
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.detach(), norm_type).to(DType::Float64));
  const double total = norm(stack(norms), norm_type).item<double>();
  check(!error_if_nonfinite || std::isfinite(total), "clip_grad_norm_",
        "the total norm of order {} of the gradients is non-finite ({}), so it cannot be clipped", norm_type, total);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0)
    for (Tensor& g : grads) mul_(g, coef);
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  check(clip_value >= 0, "clip_grad_value_", "invalid clip_value {} (must be >= 0)", clip_value);
  NoGradGuard no_grad;
  for (Tensor& g : defined_grads(params, "clip_grad_value_")) g.copy_(clamp(g, -clip_value, clip_value));
}

}  // namespace hm::optim

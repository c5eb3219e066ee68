// Gradient clipping, composed from the reduction and elementwise ops so it runs on any
// device; the scale is computed where the gradients are, and only clip_grad_norm_ reads the
// total norm (one scalar) back to the host.
#include "harmonic/optim/clip.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/binary.h"
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

Tensor clip_norms(const std::vector<Tensor>& params, double max_norm, double norm_type, std::string_view fn,
                  bool clip) {
  check(max_norm >= 0, fn, "invalid max_norm {} (must be >= 0)", max_norm);
  check(norm_type > 0, fn, "invalid norm_type {} (must be > 0 or inf)", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(params, fn);
  if (grads.empty()) return Tensor();
  // Per-tensor norms in their own dtype, combined in float64 (grads may mix dtypes).
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.detach(), norm_type).to(DType::Float64));
  const Tensor total = norm(stack(norms), norm_type);
  if (!clip) return total;
  // min(1, max_norm / (total + 1e-6)) in float64, rounded to each gradient's dtype: a factor of
  // exactly 1 leaves a gradient unchanged, as skipping the scaling would.
  const Tensor coef =
      minimum(div(full_like(total, max_norm), add(total, 1e-6)), ones_like(total));  // fill kernels: no copy
  for (Tensor& g : grads) g.copy_(mul(g, coef.to(g.dtype())));
  return total;
}
}  // namespace

Tensor clip_grad_norm_on_device_(const std::vector<Tensor>& params, double max_norm, double norm_type) {
  return clip_norms(params, max_norm, norm_type, "clip_grad_norm_on_device_", std::isfinite(max_norm));
}

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  // The host needs the norm before scaling only to refuse a non-finite one.
  const Tensor total_t =
      clip_norms(params, max_norm, norm_type, "clip_grad_norm_", std::isfinite(max_norm) && !error_if_nonfinite);
  if (!total_t.defined()) return 0.0;
  const double total = total_t.item<double>();
  if (!error_if_nonfinite || !std::isfinite(max_norm)) return total;
  check(std::isfinite(total), "clip_grad_norm_",
        "the total norm of order {} of the gradients is non-finite ({}), so it cannot be clipped", norm_type, total);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0)
    for (Tensor& g : defined_grads(params, "clip_grad_norm_")) mul_(g, coef);
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  check(clip_value >= 0, "clip_grad_value_", "invalid clip_value {} (must be >= 0)", clip_value);
  NoGradGuard no_grad;
  for (Tensor& g : defined_grads(params, "clip_grad_value_")) g.copy_(clamp(g, -clip_value, clip_value));
}

}  // namespace hm::optim

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

// The total norm as a 0-d float64 tensor on the gradients' device (undefined without gradients),
// the gradients scaled there when max_norm is finite. error_if_nonfinite reads the norm first
// (a wait for the device) to refuse a NaN or infinite one.
Tensor clip_norms(const std::vector<Tensor>& params, double max_norm, double norm_type, std::string_view fn,
                  bool error_if_nonfinite) {
  check(max_norm >= 0, fn, "invalid max_norm {} (must be >= 0)", max_norm);
  check(norm_type > 0, fn, "invalid norm_type {} (must be > 0 or inf)", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(params, fn);
  if (grads.empty()) return Tensor();
  // Per-tensor norms in their own dtype, combined in float64 (grads may mix dtypes).
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.detach(), norm_type).to(DType::Float64));
  const Tensor total = norm(stack(norms), norm_type);
  if (error_if_nonfinite) {
    const double t = total.item<double>();
    check(std::isfinite(t), fn,
          "the total norm of order {} of the gradients is non-finite ({}), so it cannot be clipped", norm_type, t);
  }
  if (!std::isfinite(max_norm)) return total;  // the norm alone
  // min(1, max_norm / (total + 1e-6)) in float64, rounded to each gradient's dtype: a factor of
  // exactly 1 leaves a gradient unchanged, as skipping the scaling would.
  const Tensor coef =
      minimum(div(full_like(total, max_norm), add(total, 1e-6)), ones_like(total));  // fill kernels: no copy
  for (Tensor& g : grads) g.copy_(mul(g, coef.to(g.dtype())));
  return total;
}
}  // namespace

Tensor clip_grad_norm_on_device_(const std::vector<Tensor>& params, double max_norm, double norm_type) {
  return clip_norms(params, max_norm, norm_type, "clip_grad_norm_on_device_", false);
}

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  const Tensor total = clip_norms(params, max_norm, norm_type, "clip_grad_norm_", error_if_nonfinite);
  return total.defined() ? total.item<double>() : 0.0;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  check(clip_value >= 0, "clip_grad_value_", "invalid clip_value {} (must be >= 0)", clip_value);
  NoGradGuard no_grad;
  for (Tensor& g : defined_grads(params, "clip_grad_value_")) g.copy_(clamp(g, -clip_value, clip_value));
}

}  // namespace hm::optim

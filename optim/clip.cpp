// Gradient clipping. Norm type 2: the norms of all gradients in one multi-tensor reduction
// per dtype and the scale in one multi-tensor kernel per dtype (optim/optim_kernels.h), the
// total combined in float64 on the gradients' device. Other norm types are composed from the
// reduction and elementwise ops. Only clip_grad_norm_ reads the total norm (one scalar) back
// to the host.
#include "harmonic/optim/clip.h"

#include <algorithm>
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/binary.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/ops/shape_views.h"
#include "harmonic/ops/unary.h"
#include "harmonic/optim/optim_kernels.h"

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

// The gradients split by dtype, in order (one device is required: checked by the caller).
std::vector<std::vector<Tensor>> clip_by_dtype(const std::vector<Tensor>& grads) {
  std::vector<std::vector<Tensor>> parts;
  for (const Tensor& g : grads) {
    auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p[0].dtype() == g.dtype(); });
    if (it == parts.end())
      parts.push_back({g});
    else
      it->push_back(g);
  }
  return parts;
}

// Norm type 2: the multi-tensor reduction (optim/optim_functors.h has its summation order).
// The gradients must be contiguous and on one device (clip_fused_norm2).
bool clip_fused_norm2(const std::vector<Tensor>& grads, double norm_type) {
  if (norm_type != 2) return false;
  for (const Tensor& g : grads)
    if (!g.is_contiguous() || g.device() != grads[0].device()) return false;
  return true;
}

Tensor clip_total_norm2(const std::vector<Tensor>& grads) {
  const Tensor total_sq = zeros({1}, {.dtype = DType::Float64, .device = grads[0].device()});
  for (const auto& part : clip_by_dtype(grads)) clip_norm_sq_kernel(total_sq.device(), part, total_sq);
  return sqrt(reshape(total_sq, {}));
}

// Other norm types: per-tensor norms in their own dtype, combined in float64.
Tensor clip_total_norm_composed(const std::vector<Tensor>& grads, double norm_type) {
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.detach(), norm_type).to(DType::Float64));
  return norm(stack(norms), norm_type);
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
  const bool fused = clip_fused_norm2(grads, norm_type);
  const Tensor total = fused ? clip_total_norm2(grads) : clip_total_norm_composed(grads, norm_type);
  if (error_if_nonfinite) {
    const double t = total.item<double>();
    check(std::isfinite(t), fn,
          "the total norm of order {} of the gradients is non-finite ({}), so it cannot be clipped", norm_type, t);
  }
  if (!std::isfinite(max_norm)) return total;  // the norm alone
  // min(1, max_norm / (total + 1e-6)) in float64, rounded to each gradient's dtype: a factor of
  // exactly 1 leaves a gradient unchanged, as skipping the scaling would.
  if (fused) {
    for (const auto& part : clip_by_dtype(grads)) clip_scale_kernel(total.device(), part, reshape(total, {1}), max_norm);
    for (Tensor& g : grads) g.bump_version();
    return total;
  }
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

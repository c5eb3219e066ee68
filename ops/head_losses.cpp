// Head losses (ops/head_losses.h): checks, the fused path through the kernel slots of
// ops/head_losses_kernels.h where the device binds them, the composed forms elsewhere. The
// formulas and derivatives are in ops/cpu/head_losses.cpp and ops/cpu/head_losses_gmm.cpp.
#include "harmonic/ops/head_losses.h"

#include <cmath>
#include <numbers>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/head_losses_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

using Grads = std::vector<Tensor>;

// A contiguous copy (or self) without taping.
Tensor flat(const Tensor& t) {
  NoGradGuard guard;
  return t.contiguous();
}

// The leading dims of x (all but the last).
Shape leading(const Tensor& x) { return Shape(x.shape().begin(), x.shape().end() - 1); }

// x defined, float32/float64, at least 1-d.
void check_float(const Tensor& x, std::string_view fn, std::string_view what) {
  check(x.defined(), fn, "undefined {}", what);
  HM_CHECK((x.dtype() == DType::Float32 || x.dtype() == DType::Float64) && x.dim() >= 1, fn,
           "{} must be a float32 or float64 tensor of at least 1 dim, got {}", what, x.desc());
}

// other has x's dtype and device.
void check_like(const Tensor& x, const Tensor& other, std::string_view fn, std::string_view what) {
  HM_CHECK(other.defined() && other.dtype() == x.dtype() && other.device() == x.device(), fn,
           "{} must have the dtype and device of {}, got {}", what, x.desc(), other.desc());
}

void check_fourier_nll(const Tensor& coeffs, const Tensor& targets) {
  check_float(coeffs, "fourier_nll", "coeffs");
  HM_CHECK(coeffs.size(-1) >= 2 && coeffs.size(-1) % 2 == 0, "fourier_nll",
           "coeffs must be (..., 2(N+1)) with an even last dim >= 2, got {}", coeffs.desc());
  check_like(coeffs, targets, "fourier_nll", "targets");
  HM_CHECK(targets.shape() == leading(coeffs), "fourier_nll", "targets must be (...) for coeffs {}, got {}",
           coeffs.desc(), targets.desc());
}

void check_gmm(const Tensor& means, const Tensor& stds, std::string_view fn) {
  check_float(means, fn, "means");
  check_like(means, stds, fn, "stds");
  HM_CHECK(stds.dim() == 1 && stds.size(0) == means.size(-1), fn,
           "stds must be (K) = ({}) for means {} (..., K), got {}", means.size(-1), means.desc(), stds.desc());
}

void check_gmm_log_pmf(const Tensor& means, const Tensor& stds, int64_t bins) {
  check_gmm(means, stds, "gmm_log_pmf");
  HM_CHECK(bins >= 1, "gmm_log_pmf", "bins must be >= 1, got {} (means {})", bins, means.desc());
}

void check_gmm_nll(const Tensor& means, const Tensor& stds, const Tensor& targets) {
  check_gmm(means, stds, "gmm_nll");
  check_like(means, targets, "gmm_nll", "targets");
  HM_CHECK(targets.shape() == leading(means), "gmm_nll", "targets must be (...) for means {}, got {}", means.desc(),
           targets.desc());
}

// The fused kernel applies: the device binds it, and there is at least one row.
template <class K>
bool fused_on(const K& kernel, const Tensor& x) {
  return x.numel() > 0 && (x.device().is_cpu() ? kernel.cpu : kernel.cuda) != nullptr;
}

// N(z; 0, 1) scaled by 1/s: the component densities from standardised values z and stds s.
Tensor normal_density(const Tensor& z, const Tensor& s) {
  return div(exp(mul(square(z), -0.5)), mul(s, std::sqrt(2.0 * std::numbers::pi)));
}

}  // namespace

// -- Fourier density NLL ------------------------------------------------------------------------

Tensor detail::fourier_nll_composed(const Tensor& coeffs, const Tensor& targets) {
  check_fourier_nll(coeffs, targets);
  return mean(neg(log(add(squeeze(fourier_pdf(coeffs, unsqueeze(targets, -1)), -1), 1e-10))));
}

Tensor fourier_nll(const Tensor& coeffs_arg, const Tensor& targets) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  check_fourier_nll(coeffs, targets);
  if (!fused_on(fourier_nll_kernel, coeffs)) return detail::fourier_nll_composed(coeffs, targets);
  Tensor x = flat(coeffs), t = flat(targets);
  Tensor out = Tensor::empty({}, coeffs.dtype(), coeffs.device());
  fourier_nll_kernel(coeffs.device(), x, t, out);
  const bool rec = autograd::will_record({coeffs});
  return autograd::record(
      "fourier_nll", out, {coeffs},
      [sx = rec ? autograd::Saved(x) : autograd::Saved(), st = rec ? autograd::Saved(t) : autograd::Saved(),
       shape = coeffs.shape()](const Tensor& g, const autograd::NeedsGrad&) {
        const Tensor &xv = sx.get(), &tv = st.get();
        Tensor gx = Tensor::empty(shape, xv.dtype(), xv.device());
        fourier_nll_backward_kernel(xv.device(), xv, tv, flat(g), gx);
        return Grads{gx};
      });
}

// -- GMM binned log-pmf -------------------------------------------------------------------------

Tensor detail::gmm_log_pmf_composed(const Tensor& means, const Tensor& stds, int64_t bins) {
  check_gmm_log_pmf(means, stds, bins);
  Tensor centres = fourier_bin_centres(bins).to(means.dtype()).to(means.device());  // (m)
  Tensor sd = unsqueeze(stds, -1);                                                  // (K, 1)
  Tensor zs = div(sub(centres, unsqueeze(means, -1)), sd);                          // (..., K, m)
  Tensor mix = mean(normal_density(zs, sd), {-2});                                  // (..., m), equal weights
  Tensor pmf = div(mix, sum(mix, {-1}, true));
  return log(add(pmf, 1e-5));
}

Tensor gmm_log_pmf(const Tensor& means_arg, const Tensor& stds_arg, int64_t bins) {
  const Tensor means = autocast_widen(means_arg);  // bfloat16 under autocast: computed in float32
  const Tensor stds = autocast_widen(stds_arg);
  check_gmm_log_pmf(means, stds, bins);
  if (!fused_on(gmm_log_pmf_kernel, means)) return detail::gmm_log_pmf_composed(means, stds, bins);
  const int64_t k = means.size(-1), rows = means.numel() / k;
  Tensor mu = flat(means), sd = flat(stds);
  Shape out_shape = means.shape();
  out_shape.back() = bins;
  Tensor out = Tensor::empty(out_shape, means.dtype(), means.device());
  Tensor w = Tensor::empty({rows, k, bins}, means.dtype(), means.device());  // every component's term, for the backward
  gmm_log_pmf_kernel(means.device(), mu, sd, w, out);
  if (!autograd::will_record({means, stds})) return out;
  return autograd::record("gmm_log_pmf", out, {means, stds},
                          [smu = autograd::Saved(mu), ssd = autograd::Saved(sd), w, shape = means.shape()](
                              const Tensor& g, const autograd::NeedsGrad& needs) {
                            const Tensor &muv = smu.get(), &sdv = ssd.get();
                            Tensor gmu = Tensor::empty(shape, muv.dtype(), muv.device());
                            Tensor gsd = Tensor::empty(sdv.shape(), sdv.dtype(), sdv.device());
                            gmm_log_pmf_backward_kernel(muv.device(), muv, sdv, w, flat(g), gmu, gsd);
                            return Grads{needs[0] ? gmu : Tensor(), needs[1] ? gsd : Tensor()};
                          });
}

// -- GMM density NLL ----------------------------------------------------------------------------

Tensor detail::gmm_nll_composed(const Tensor& means, const Tensor& stds, const Tensor& targets) {
  check_gmm_nll(means, stds, targets);
  Tensor s = abs(stds);                                   // (K)
  Tensor z = div(sub(unsqueeze(targets, -1), means), s);  // (..., K)
  return mean(neg(log(add(mean(normal_density(z, s), {-1}), 1e-10))));
}

Tensor gmm_nll(const Tensor& means_arg, const Tensor& stds_arg, const Tensor& targets) {
  const Tensor means = autocast_widen(means_arg);  // bfloat16 under autocast: computed in float32
  const Tensor stds = autocast_widen(stds_arg);
  check_gmm_nll(means, stds, targets);
  if (!fused_on(gmm_nll_kernel, means)) return detail::gmm_nll_composed(means, stds, targets);
  Tensor mu = flat(means), sd = flat(stds), t = flat(targets);
  Tensor out = Tensor::empty({}, means.dtype(), means.device());
  gmm_nll_kernel(means.device(), mu, sd, t, out);
  const bool rec = autograd::will_record({means, stds});
  return autograd::record(
      "gmm_nll", out, {means, stds},
      [smu = rec ? autograd::Saved(mu) : autograd::Saved(), ssd = rec ? autograd::Saved(sd) : autograd::Saved(),
       st = rec ? autograd::Saved(t) : autograd::Saved(),
       shape = means.shape()](const Tensor& g, const autograd::NeedsGrad& needs) {
        const Tensor &muv = smu.get(), &sdv = ssd.get(), &tv = st.get();
        Tensor gmu = Tensor::empty(shape, muv.dtype(), muv.device());
        Tensor gsd = Tensor::empty(sdv.shape(), sdv.dtype(), sdv.device());
        gmm_nll_backward_kernel(muv.device(), muv, sdv, tv, flat(g), gmu, gsd);
        return Grads{needs[0] ? gmu : Tensor(), needs[1] ? gsd : Tensor()};
      });
}

}  // namespace hm

// Fused FRU/SRU recurrence: checks, allocation and the tape entry; the compute is in
// ops/cpu/fru_recurrence.cpp behind the slots of ops/fru_recurrence_kernels.h.
#include "harmonic/ops/fru_recurrence.h"

#include "harmonic/autograd/node.h"
#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/fru_recurrence_kernels.h"
#include "harmonic/ops/ops.h"

namespace hm {
namespace {

constexpr const char* kFruRecurrence = "fru_recurrence";

void check_shape(const Tensor& t, const Shape& want, const char* what) {
  HM_CHECK(t.shape() == want, kFruRecurrence, "{} must have shape {}, got {}", what, str(want), t.desc());
}

// last_only: mu is (1, B, K*d), the state of the last step (CPU kernels only).
Tensor run(const Tensor& px_arg, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
           const Tensor& decay, const Tensor& mu0_in, bool last_only) {
  const Tensor px = autocast_widen(px_arg);  // bfloat16 under autocast: computed in float32
  check(px.defined() && w_r.defined() && b_r.defined() && w_pr.defined() && coef.defined() && decay.defined(), kFruRecurrence,
        "px, w_r, b_r, w_pr, coef and decay must be defined");
  HM_CHECK(px.dim() == 3, kFruRecurrence, "px must be (T, B, d), got {}", px.desc());
  HM_CHECK(w_r.dim() == 2 && coef.dim() == 2 && decay.dim() == 1, kFruRecurrence,
           "w_r (R, K*d), coef (T, K), decay (K) expected, got {}, {}, {}", w_r.desc(), coef.desc(), decay.desc());
  const int64_t T = px.size(0), B = px.size(1), d = px.size(2), R = w_r.size(0), K = decay.size(0);
  HM_CHECK(T > 0 && B > 0 && d > 0 && K > 0, kFruRecurrence, "empty sizes: px {}, decay {}", px.desc(), decay.desc());
  check_shape(w_r, {R, K * d}, "w_r");
  check_shape(b_r, {R}, "b_r");
  check_shape(w_pr, {d, R}, "w_pr");
  check_shape(coef, {T, K}, "coef");
  const DType dt = px.dtype();
  HM_CHECK(dt == DType::Float32 || dt == DType::Float64, kFruRecurrence, "px must be float32 or float64, got {}", px.desc());
  for (const Tensor* t : {&w_r, &b_r, &w_pr, &coef, &decay})
    HM_CHECK(t->dtype() == dt && t->device() == px.device(), kFruRecurrence, "all inputs must match px ({}), got {}", px.desc(),
             t->desc());
  Tensor mu0 = mu0_in.defined() ? mu0_in : zeros({B, K * d}, {.dtype = dt, .device = px.device()});
  check_shape(mu0, {B, K * d}, "mu0");
  HM_CHECK(mu0.dtype() == dt && mu0.device() == px.device(), kFruRecurrence, "mu0 must match px ({}), got {}", px.desc(),
           mu0.desc());

  Tensor pxc = px.contiguous(), wrc = w_r.contiguous(), brc = b_r.contiguous(), wprc = w_pr.contiguous();
  Tensor coefc = coef.contiguous(), decc = decay.contiguous(), mu0c = mu0.contiguous();
  const TensorOptions opt{.dtype = dt, .device = px.device()};
  Tensor mu = empty({last_only ? 1 : T, B, K * d}, opt), r = empty({T, B, R}, opt), phi = empty({T, B, d}, opt);
  fru_forward_kernel(px.device(), pxc, wrc, brc, wprc, coefc, decc, mu0c, mu, r, phi);

  std::vector<Tensor> inputs{px, w_r, b_r, w_pr, coef, mu0};
  if (!autograd::will_record(inputs)) return mu;
  autograd::Saved s_wr(wrc), s_wpr(wprc), s_coef(coefc), s_dec(decc), s_mu0(mu0c), s_mu(mu), s_r(r), s_phi(phi);
  return autograd::record(kFruRecurrence, mu, inputs, [=](const Tensor& g, const autograd::NeedsGrad&) {
    Tensor wr = s_wr.get(), wpr = s_wpr.get(), cf = s_coef.get(), dc = s_dec.get(), m0 = s_mu0.get();
    Tensor mus = s_mu.get(), rs = s_r.get(), phis = s_phi.get();
    const TensorOptions o{.dtype = mus.dtype(), .device = mus.device()};
    Tensor g_px = empty({T, B, d}, o), g_wr = empty(wr.shape(), o), g_br = empty({R}, o);
    Tensor g_wpr = empty(wpr.shape(), o), g_coef = empty(cf.shape(), o), g_mu0 = empty(m0.shape(), o);
    fru_backward_kernel(mus.device(), g.contiguous(), wr, wpr, cf, dc, m0, mus, rs, phis, g_px, g_wr, g_br, g_wpr,
                        g_coef, g_mu0);
    return std::vector<Tensor>{g_px, g_wr, g_br, g_wpr, g_coef, g_mu0};
  });
}

}  // namespace

Tensor fru_recurrence(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                      const Tensor& decay, const Tensor& mu0) {
  return run(px, w_r, b_r, w_pr, coef, decay, mu0, false);
}

Tensor fru_recurrence_last(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr,
                           const Tensor& coef, const Tensor& decay, const Tensor& mu0) {
  if (px.defined() && !px.device().is_cpu()) {
    Tensor mu = run(px, w_r, b_r, w_pr, coef, decay, mu0, false);
    return select(mu, 0, mu.size(0) - 1);
  }
  return squeeze(run(px, w_r, b_r, w_pr, coef, decay, mu0, true), 0);
}

}  // namespace hm

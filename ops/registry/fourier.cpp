// Op table entries for the Fourier family: ops/fourier_head.h, ops/head_losses.h,
// ops/fourier_attention.h and ops/fru_recurrence.h. The composed twins of the fused ops
// (namespace detail) are entries too ("<op>_composed"): the sweep holds fused against composed,
// and `harmonic bench --op` can time both.
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/fru_recurrence.h"
#include "harmonic/ops/head_losses.h"
#include "harmonic/ops/registry/registry.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

// fourier_autocorrelation's output `index`: 0 = Re c, 1 = Im c.
Tensor autocorrelation_op(V x, A a) {
  auto [re, im] = fourier_autocorrelation(x[0]);
  int64_t k = a.i("index");
  check(k == 0 || k == 1, "op fourier_autocorrelation", "attribute 'index' must be 0 (Re c) or 1 (Im c), got {}", k);
  return k == 0 ? re : im;
}

// Dropout on the attention weights draws from a generator seeded by the "seed" attribute, so
// one seed gives one mask (finite differences see the same mask on every call).
Tensor fourier_attention_op(V x, A a) {
  Generator gen(static_cast<uint64_t>(a.i("seed")));
  FourierAttentionMask mask{.causal = a.b("causal"), .key_padding_mask = x[4], .additive_bias = Tensor()};
  return fourier_attention(x[0], x[1], x[2], x[3], a.i("p"), mask, a.f("dropout_p"), a.b("training"), &gen,
                           a.b("recompute"));
}

}  // namespace

void add_fourier_ops(std::vector<OpSpec>& t) {
  FamilyTable F{t, "fourier"};
  // -- the Fourier head (coeffs (..., 2(N+1)), here N = 2) ------------------------------------
  F("fourier_head_log_pmf", "coeffs", R"({"bins": null})",
    [](V x, A a) { return fourier_head_log_pmf(x[0], a.i("bins")); })
      .ex("2x6", R"({"bins": 8})")
      .bad("2x5");
  F("fourier_pdf", "coeffs points", "{}", [](V x, A) { return fourier_pdf(x[0], x[1]); })
      .ex("2x6,2x3")
      .domain("points", Domain::Unit)
      .bad("2x6,3x3");
  F("fourier_cdf", "coeffs points", "{}", [](V x, A) { return fourier_cdf(x[0], x[1]); })
      .ex("2x6,2x3")
      .domain("points", Domain::Unit)
      .bad("2x6,3x3");
  F("fourier_autocorrelation", "coeffs", R"({"index": 0})", autocorrelation_op).ex("2x6", R"({"index": 1})").bad("2x5");
  const char* reg = R"({"gamma": null, "bins": null, "code_scaling": false})";
  F("fourier_regularizer", "coeffs", reg,
    [](V x, A a) { return fourier_regularizer(x[0], a.f("gamma"), a.i("bins"), a.b("code_scaling")); })
      .ex("2x6", R"({"gamma": 0.5, "bins": 8})")
      .bad("2x5")
      .twin("fourier_regularizer_composed");
  F("fourier_regularizer_composed", "coeffs", reg,
    [](V x, A a) { return detail::fourier_regularizer_composed(x[0], a.f("gamma"), a.i("bins"), a.b("code_scaling")); })
      .ex("2x6", R"({"gamma": 0.5, "bins": 8})")
      .bad("2x5")
      .fn("fourier_regularizer");

  // -- per-step head losses (targets in [-1, 1], no gradient to them) -------------------------
  F("fourier_nll", "coeffs ~targets", "{}", [](V x, A) { return fourier_nll(x[0], x[1]); })
      .ex("3x6,3")
      .domain("targets", Domain::Unit)
      .bad("3x6,2")
      .twin("fourier_nll_composed");
  F("fourier_nll_composed", "coeffs ~targets", "{}", [](V x, A) { return detail::fourier_nll_composed(x[0], x[1]); })
      .ex("3x6,3")
      .domain("targets", Domain::Unit)
      .bad("3x6,2")
      .fn("fourier_nll");
  F("gmm_log_pmf", "means stds", R"({"bins": null})", [](V x, A a) { return gmm_log_pmf(x[0], x[1], a.i("bins")); })
      .ex("3x2,2", R"({"bins": 8})")
      .domain("stds", Domain::Positive)
      .twin("gmm_log_pmf_composed");
  F("gmm_log_pmf_composed", "means stds", R"({"bins": null})",
    [](V x, A a) { return detail::gmm_log_pmf_composed(x[0], x[1], a.i("bins")); })
      .ex("3x2,2", R"({"bins": 8})")
      .domain("stds", Domain::Positive)
      .fn("gmm_log_pmf");
  F("gmm_nll", "means stds ~targets", "{}", [](V x, A) { return gmm_nll(x[0], x[1], x[2]); })
      .ex("3x2,2,3")
      .domain("stds", Domain::Positive)
      .domain("targets", Domain::Unit)
      .twin("gmm_nll_composed");
  F("gmm_nll_composed", "means stds ~targets", "{}", [](V x, A) { return detail::gmm_nll_composed(x[0], x[1], x[2]); })
      .ex("3x2,2,3")
      .domain("stds", Domain::Positive)
      .domain("targets", Domain::Unit)
      .fn("gmm_nll");

  // -- FourierFormer attention: q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), R 0-d or (D);
  // q and k small and R ~ 1 keep R (q - k) below pi, away from the zeros of sinc where the
  // log|sinc| logits have poles.
  F("fourier_attention", "q k v R !key_padding_mask?",
    R"({"p": 4, "causal": false, "dropout_p": 0.0, "training": false, "seed": 0, "recompute": false})",
    fourier_attention_op)
      .ex("1x2x3x2,1x2x4x2,1x2x4x3,2,1x4", R"({"causal": true, "dropout_p": 0.25, "training": true})")
      .domain("q", Domain::Unit)
      .domain("k", Domain::Unit)
      .domain("R", Domain::Positive)
      .bad("1x2x3x2,1x2x4x3,1x2x4x3,2");
  F("fourier_attention_logits_reference", "q k R", R"({"p": 4})",
    [](V x, A a) { return fourier_attention_logits_reference(x[0], x[1], x[2], a.i("p")); })
      .ex("1x2x3x2,1x2x4x2,scalar")
      .domain("q", Domain::Unit)
      .domain("k", Domain::Unit)
      .domain("R", Domain::Positive)
      .bad("1x2x3x2,1x2x4x3,scalar");

  // -- the FRU recurrence: T = 3, B = 2, d = 2, K = 2, R = 3 ----------------------------------
  // px (T, B, d), w_r (R, K*d), b_r (R), w_pr (d, R), coef (T, K), decay (K), mu0 (B, K*d)
  const char* fru = "px w_r b_r w_pr coef ~decay mu0?";
  F("fru_recurrence", fru, "{}", [](V x, A) { return fru_recurrence(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); })
      .ex("3x2x2,3x4,3,2x3,3x2,2,2x4")
      .domain("decay", Domain::Fraction)
      .bad("3x2x2,3x4,3,2x3,3x2,2,2x5");
  F("fru_recurrence_last", fru, "{}",
    [](V x, A) { return fru_recurrence_last(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); })
      .ex("3x2x2,3x4,3,2x3,3x2,2,2x4")
      .domain("decay", Domain::Fraction)
      .bad("3x2x2,3x4,3,2x3,3x2,2,2x5")
      .fn("fru_recurrence");
}

}  // namespace hm::ops

// Fourier head layers (Gillman et al., ICLR 2025, sections 2.2-2.3) and the GMM baseline
// head of the paper's toy study. The math lives in ops/fourier_head.h.
#pragma once
#include <memory>

#include "harmonic/core/random.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

// Linear(in, 2(N+1)) -> Fourier log-pmf over `bins` bins of [-1, 1]. Init: PyTorch's default
// Linear init, then weight / weight_denominator and bias / bias_denominator (toy code 100/100;
// the paper text says 1000; the time-series code 1000/10). Note p is invariant to scaling all
// coefficients, so equal denominators do NOT make the initial pmf uniform (they leave it as with
// the plain init and only shrink the coefficients); unequal ones tilt it towards the bias's pmf.
// Reduced-precision input is upcast to float32 (the head must not run in bf16).
class FourierHead : public UnaryModule {
 public:
  FourierHead(int64_t in_features, int64_t bins, int64_t frequencies, double gamma = 0.0,
              double weight_denominator = 100.0, double bias_denominator = 100.0, Generator* gen = nullptr,
              bool code_scaling = false);
  // (..., in) -> (..., bins): log(pmf + 1e-5), to be used as cross-entropy logits.
  Tensor forward(const Tensor& x) override;
  Tensor coefficients(const Tensor& x);  // (..., in) -> (..., 2(N+1))
  // gamma-weighted smoothness regulariser of the last forward's coefficients (0-d; zero
  // before any forward or when gamma = 0). Differentiable through that forward's graph.
  Tensor regularization_loss() const;

  int64_t in_features, bins, frequencies;
  double gamma;
  bool code_scaling;  // the authors' code's 2m-scaled regulariser (fourier_regularizer)
  std::shared_ptr<Linear> linear;

 private:
  Tensor last_coeffs_;  // (..., 2(N+1)) of the last forward
};

// Continuous (MLE) variant: the same parameterisation as a density on [-1, 1].
class FourierHeadMLE : public UnaryModule {
 public:
  // reg_bins is the m of the regulariser's 2 pi^2 / m factor.
  FourierHeadMLE(int64_t in_features, int64_t frequencies, double gamma = 0.0, double weight_denominator = 100.0,
                 double bias_denominator = 100.0, int64_t reg_bins = 50, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;           // (..., in) -> coefficients (..., 2(N+1))
  Tensor pdf(const Tensor& x, const Tensor& points);  // points (P) or (..., P) -> (..., P)
  Tensor cdf(const Tensor& x, const Tensor& points);  // closed form, same shapes
  // mean(-log(p(y) + 1e-10)) + regulariser; x (..., in), targets (...) in (-1, 1). 0-d.
  Tensor nll(const Tensor& x, const Tensor& targets);
  // num_samples draws per row by bisection on the CDF (to 1e-12): (..., in) -> (..., S) float64.
  Tensor sample(const Tensor& x, int64_t num_samples, Generator* gen = nullptr);

  int64_t in_features, frequencies, reg_bins;
  double gamma;
  std::shared_ptr<Linear> linear;
};

// GMM baseline head: K Gaussian components with means tanh(Linear(in, K)), a learnable
// per-component std initialised to 2/m, equal weights. forward returns log(pmf + 1e-5),
// the mixture density at the bin centres normalised over the bins. (..., in) -> (..., bins).
// The std parameter is either the std itself (softplus_stds = false) or, as in the authors'
// toy code (gmm_head.py), s with std = softplus(s), initialised to softplus^-1(2/m): Adam then
// moves the std ~25x more slowly relative to its size, which the toy study's GMM results need
// (a raw std overshoots and ends far worse on GMM-2).
class GMMHead : public UnaryModule {
 public:
  GMMHead(int64_t in_features, int64_t bins, int64_t components, Generator* gen = nullptr, bool softplus_stds = false);
  Tensor forward(const Tensor& x) override;
  // The MLE variant: the same mixture as a density on the real line. points (P) shared by
  // every row or (..., P) -> (..., P).
  Tensor pdf(const Tensor& x, const Tensor& points);
  // mean(-log(p(targets) + 1e-10)); x (..., in), targets (...). 0-d.
  Tensor nll(const Tensor& x, const Tensor& targets);
  // The component stds (K) as used: softplus(stds), or stds itself (forward) and |stds| (pdf,
  // nll: a raw std pushed through zero still gives a density). Differentiable.
  Tensor component_stds(bool for_density = false) const;

  int64_t in_features, bins, components;
  bool softplus_stds;
  std::shared_ptr<Linear> linear;
  Tensor stds;  // (K) the std parameter (see above)
};

}  // namespace hm::nn

#include "harmonic/nn/fourier_head.h"

#include <cmath>
#include <numbers>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/checked_math.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/head_losses.h"
#include "harmonic/ops/ops.h"

namespace hm::nn {
namespace {

// Default Linear init scaled down so the initial density is near uniform.
std::shared_ptr<Linear> scaled_linear(int64_t in, int64_t out, double wden, double bden, Generator* gen,
                                      std::string_view fn) {
  check(wden > 0 && bden > 0, fn, "denominators must be positive, got weight {} bias {}", wden, bden);
  auto lin = std::make_shared<Linear>(in, out, true, gen);
  NoGradGuard guard;
  mul_(lin->weight, 1.0 / wden);
  mul_(lin->bias, 1.0 / bden);
  return lin;
}

// The head runs in float32 at least.
Tensor upcast(const Tensor& x) {
  return x.dtype() == DType::BFloat16 || x.dtype() == DType::Float16 ? x.to(DType::Float32) : x;
}

}  // namespace

// -- FourierHead --------------------------------------------------------------------------------

FourierHead::FourierHead(int64_t in, int64_t bins_, int64_t n, double gamma_, double wden, double bden, Generator* gen,
                         bool code_scaling_)
    : UnaryModule(fmt::format("FourierHead({}, bins={}, frequencies={})", in, bins_, n)),
      in_features(in),
      bins(bins_),
      frequencies(n),
      gamma(gamma_),
      code_scaling(code_scaling_) {
  check(bins_ >= 1 && n >= 0, "FourierHead", "need bins >= 1 and frequencies >= 0, got bins={} frequencies={}", bins_,
        n);
  const int64_t coeffs = checked_mul(2, checked_add(n, 1, "FourierHead"), "FourierHead");  // 2(N+1)
  linear = register_module("linear", scaled_linear(in, coeffs, wden, bden, gen, "FourierHead"));
}

Tensor FourierHead::coefficients(const Tensor& x) { return linear->forward(upcast(x)); }

Tensor FourierHead::forward(const Tensor& x) {
  last_coeffs_ = coefficients(x);
  return fourier_head_log_pmf(last_coeffs_, bins);
}

Tensor FourierHead::regularization_loss() const {
  if (!last_coeffs_.defined() || gamma == 0.0)
    return zeros({}, {.dtype = linear->weight.dtype(), .device = linear->weight.device()});
  return fourier_regularizer(last_coeffs_, gamma, bins, code_scaling);
}

// -- FourierHeadMLE -----------------------------------------------------------------------------

FourierHeadMLE::FourierHeadMLE(int64_t in, int64_t n, double gamma_, double wden, double bden, int64_t reg_bins_,
                               Generator* gen)
    : UnaryModule(fmt::format("FourierHeadMLE({}, frequencies={})", in, n)),
      in_features(in),
      frequencies(n),
      reg_bins(reg_bins_),
      gamma(gamma_) {
  check(n >= 0 && reg_bins_ >= 1, "FourierHeadMLE", "need frequencies >= 0 and reg_bins >= 1, got {} and {}", n,
        reg_bins_);
  const int64_t coeffs = checked_mul(2, checked_add(n, 1, "FourierHeadMLE"), "FourierHeadMLE");  // 2(N+1)
  linear = register_module("linear", scaled_linear(in, coeffs, wden, bden, gen, "FourierHeadMLE"));
}

Tensor FourierHeadMLE::forward(const Tensor& x) { return linear->forward(upcast(x)); }

Tensor FourierHeadMLE::pdf(const Tensor& x, const Tensor& points) { return fourier_pdf(forward(x), points); }

Tensor FourierHeadMLE::cdf(const Tensor& x, const Tensor& points) { return fourier_cdf(forward(x), points); }

Tensor FourierHeadMLE::nll(const Tensor& x, const Tensor& targets) {
  Tensor coeffs = forward(x);  // (..., K)
  HM_CHECK(targets.dim() == coeffs.dim() - 1, "FourierHeadMLE::nll",
           "targets must be (...) for coefficients {}, got {}", coeffs.desc(), targets.desc());
  Tensor loss = fourier_nll(coeffs, targets.to(coeffs.dtype()).to(coeffs.device()));
  if (gamma != 0.0) loss = add(loss, fourier_regularizer(coeffs, gamma, reg_bins));
  return loss;
}

Tensor FourierHeadMLE::sample(const Tensor& x, int64_t num_samples, Generator* gen) {
  check(num_samples >= 1, "FourierHeadMLE::sample", "num_samples must be >= 1, got {}", num_samples);
  NoGradGuard guard;
  Tensor coeffs = forward(x).to(DType::Float64).to(Device::cpu());  // (..., K)
  auto [cre, cim] = fourier_autocorrelation(coeffs);                // (..., N+1) each
  const int64_t n = frequencies, rows = coeffs.numel() / coeffs.size(-1);
  std::vector<double> re = cre.to_vector(), im = cim.to_vector();
  Shape shape = coeffs.shape();
  shape.back() = num_samples;
  std::vector<double> u = rand({rows, num_samples}, {.dtype = DType::Float64}, gen).to_vector();
  std::vector<double> out(u.size());
  const double pi = std::numbers::pi;
  for (int64_t r = 0; r < rows; ++r) {
    const double* a = re.data() + r * (n + 1);
    const double* b = im.data() + r * (n + 1);
    auto cdf_at = [&](double z) {  // the closed form of fourier_cdf, one row
      double f = 0.5 * (z + 1.0);
      for (int64_t k = 1; k <= n; ++k) {
        double ang = pi * static_cast<double>(k) * z, alt = k % 2 ? -1.0 : 1.0;
        f += (a[k] * std::sin(ang) + b[k] * (std::cos(ang) - alt)) / (pi * static_cast<double>(k) * a[0]);
      }
      return f;
    };
    for (int64_t s = 0; s < num_samples; ++s) {
      const double target = u[r * num_samples + s];
      double lo = -1.0, hi = 1.0;  // the CDF is non-decreasing with F(-1) = 0, F(1) = 1
      while (hi - lo > 1e-12) {
        double mid = 0.5 * (lo + hi);
        (cdf_at(mid) < target ? lo : hi) = mid;
      }
      out[r * num_samples + s] = 0.5 * (lo + hi);
    }
  }
  return from_vector(out, shape);
}

// -- GMMHead ------------------------------------------------------------------------------------

GMMHead::GMMHead(int64_t in, int64_t bins_, int64_t k, Generator* gen, bool softplus_stds_)
    : UnaryModule(fmt::format("GMMHead({}, bins={}, components={})", in, bins_, k)),
      in_features(in),
      bins(bins_),
      components(k),
      softplus_stds(softplus_stds_) {
  check(bins_ >= 1 && k >= 1, "GMMHead", "need bins >= 1 and components >= 1, got bins={} components={}", bins_, k);
  linear = register_module("linear", std::make_shared<Linear>(in, k, true, gen));
  const double sd0 = 2.0 / static_cast<double>(bins_);
  stds = register_parameter("stds", full({k}, softplus_stds ? std::log(std::expm1(sd0)) : sd0));
}

Tensor GMMHead::component_stds(bool for_density) const {
  if (softplus_stds) return softplus(stds);
  return for_density ? abs(stds) : stds;
}

Tensor GMMHead::forward(const Tensor& x) {
  Tensor mu = tanh(linear->forward(upcast(x)));  // (..., K)
  return gmm_log_pmf(mu, component_stds().to(mu.dtype()), bins);
}

Tensor GMMHead::pdf(const Tensor& x, const Tensor& points) {
  Tensor means = unsqueeze(tanh(linear->forward(upcast(x))), -1);     // (..., K, 1)
  Tensor pts = unsqueeze(points.to(means.dtype()), -2);               // (P) -> (1, P); (..., P) -> (..., 1, P)
  Tensor sd = unsqueeze(component_stds(true).to(means.dtype()), -1);  // (K, 1)
  Tensor zs = div(sub(pts, means), sd);                               // (..., K, P)
  Tensor dens = div(exp(mul(square(zs), -0.5)), mul(sd, std::sqrt(2.0 * std::numbers::pi)));
  return mean(dens, {-2});  // (..., P), equal weights
}

Tensor GMMHead::nll(const Tensor& x, const Tensor& targets) {
  HM_CHECK(targets.dim() == x.dim() - 1, "GMMHead::nll", "targets must be (...) for inputs {}, got {}", x.desc(),
           targets.desc());
  Tensor mu = tanh(linear->forward(upcast(x)));  // (..., K)
  // gmm_nll takes |std| itself, so the std parameter or its softplus goes in as is.
  Tensor sd = component_stds().to(mu.dtype());
  return gmm_nll(mu, sd, targets.to(mu.dtype()).to(mu.device()));
}

}  // namespace hm::nn

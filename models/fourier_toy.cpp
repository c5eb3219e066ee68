#include "harmonic/models/fourier_toy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {

constexpr std::array<std::pair<ToyHead, std::string_view>, 6> kHeadNames{{{ToyHead::Linear, "linear"},
                                                                          {ToyHead::GMM, "gmm"},
                                                                          {ToyHead::Fourier, "fourier"},
                                                                          {ToyHead::Regression, "regression"},
                                                                          {ToyHead::GMMMLE, "gmm-mle"},
                                                                          {ToyHead::FourierMLE, "fourier-mle"}}};

}  // namespace

std::string_view toy_head_name(ToyHead head) {
  for (const auto& [h, name] : kHeadNames)
    if (h == head) return name;
  throw Error(fmt::format("[toy_head_name] unknown head {}", static_cast<int>(head)));
}

ToyHead parse_toy_head(std::string_view name) {
  for (const auto& [h, n] : kHeadNames)
    if (n == name) return h;
  std::string names;
  for (const auto& [h, n] : kHeadNames) names += (names.empty() ? "" : ", ") + std::string(n);
  throw Error(fmt::format("[parse_toy_head] unknown head '{}' (expected one of {})", name, names));
}

bool is_mle(ToyHead head) { return head == ToyHead::GMMMLE || head == ToyHead::FourierMLE; }

int64_t toy_gmm_components(data::ToyDistribution dataset) { return dataset == data::ToyDistribution::Gaussian ? 1 : 2; }

// -- the model ----------------------------------------------------------------------------------

ToyDensityModel::ToyDensityModel(ToyHead head_, int64_t bins_, data::ToyDistribution dataset, int64_t frequencies,
                                 double gamma, Generator* gen)
    : nn::Module(fmt::format("ToyDensityModel({})", toy_head_name(head_))), head(head_), bins(bins_) {
  check(bins_ >= 2, "ToyDensityModel", "need bins >= 2, got {}", bins_);
  check(frequencies >= 1 || (head_ != ToyHead::Fourier && head_ != ToyHead::FourierMLE), "ToyDensityModel",
        "the Fourier heads need frequencies >= 1, got {}", frequencies);
  check(gamma >= 0, "ToyDensityModel", "gamma must be >= 0, got {}", gamma);
  fc1 = register_module("fc1", std::make_shared<nn::Linear>(2, 64, true, gen));
  fc2 = register_module("fc2", std::make_shared<nn::Linear>(64, 32, true, gen));
  switch (head_) {
    case ToyHead::Linear:
      linear = register_module("head", std::make_shared<nn::Linear>(32, bins_, true, gen));
      break;
    case ToyHead::Regression:
      linear = register_module("head", std::make_shared<nn::Linear>(32, 1, true, gen));
      break;
    case ToyHead::Fourier:
      fourier =
          register_module("head", std::make_shared<nn::FourierHead>(32, bins_, frequencies, gamma, 100.0, 100.0, gen));
      break;
    case ToyHead::FourierMLE:
      fourier_mle = register_module(
          "head", std::make_shared<nn::FourierHeadMLE>(32, frequencies, gamma, 100.0, 100.0, bins_, gen));
      break;
    case ToyHead::GMM:
    case ToyHead::GMMMLE:
      // Classification: the authors' std = softplus(s) (gmm_head.py; nn/fourier_head.h). MLE:
      // the raw std (|s| in the density), which adapts fast from 2/m and gave the paper's
      // GMM-MLE numbers; the softplus one at 2/m starts with vanishing likelihood gradients.
      gmm = register_module(
          "head", std::make_shared<nn::GMMHead>(32, bins_, toy_gmm_components(dataset), gen, head_ == ToyHead::GMM));
      break;
  }
}

Tensor ToyDensityModel::features(const Tensor& inputs) { return relu(fc2->forward(relu(fc1->forward(inputs)))); }

Tensor ToyDensityModel::loss(const Tensor& inputs, const Tensor& targets) {
  Tensor h = features(inputs);  // (n, 32)
  switch (head) {
    case ToyHead::Linear:
      return cross_entropy(linear->forward(h), targets);
    case ToyHead::GMM:
      return cross_entropy(gmm->forward(h), targets);
    case ToyHead::Fourier: {
      Tensor ce = cross_entropy(fourier->forward(h), targets);
      return fourier->gamma == 0.0 ? ce : add(ce, fourier->regularization_loss());
    }
    case ToyHead::Regression:
      return mse_loss(squeeze(linear->forward(h), -1), targets);
    case ToyHead::FourierMLE:
      return fourier_mle->nll(h, targets);
    case ToyHead::GMMMLE:
      return gmm->nll(h, targets);
  }
  throw Error("[ToyDensityModel::loss] unknown head");
}

Tensor ToyDensityModel::predict_value(const Tensor& inputs) {
  check(head == ToyHead::Regression, "ToyDensityModel::predict_value", "only the regression head predicts values");
  NoGradGuard guard;
  return squeeze(linear->forward(features(inputs)), -1);
}

Tensor ToyDensityModel::density_at(const Tensor& inputs, const Tensor& points) {
  check(is_mle(head), "ToyDensityModel::density_at", "only the MLE heads have a density, not {}", toy_head_name(head));
  NoGradGuard guard;
  Tensor h = features(inputs);
  Tensor pts = unsqueeze(points.to(DType::Float32), -1);  // (n, 1)
  Tensor p = head == ToyHead::FourierMLE ? fourier_mle->pdf(h, pts) : gmm->pdf(h, pts);
  return squeeze(p, -1).to(DType::Float64);
}

Tensor ToyDensityModel::predict_pmf(const Tensor& inputs) {
  NoGradGuard guard;
  if (head == ToyHead::Regression) {
    Tensor value = predict_value(inputs);  // (n)
    return one_hot(data::quantize_to_bins(value, bins), bins, DType::Float64);
  }
  Tensor h = features(inputs);
  if (is_mle(head)) {
    Tensor centres = fourier_bin_centres(bins).to(DType::Float32);  // (m)
    Tensor dens = (head == ToyHead::FourierMLE ? fourier_mle->pdf(h, centres) : gmm->pdf(h, centres))
                      .to(DType::Float64);  // (n, m)
    return div(dens, sum(dens, {-1}, true));
  }
  Tensor logits = head == ToyHead::Linear ? linear->forward(h)
                  : head == ToyHead::GMM  ? gmm->forward(h)
                                          : fourier->forward(h);
  return softmax(logits.to(DType::Float64), -1);
}

}  // namespace hm::models

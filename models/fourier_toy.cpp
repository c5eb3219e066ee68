#include "models/fourier_toy.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/factories.h"
#include "nn/density_metrics.h"
#include "ops/fourier_head.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/clip.h"
#include "optim/schedule.h"

namespace hm::models {
namespace {

constexpr std::array<std::pair<ToyHead, std::string_view>, 6> kHeadNames{{{ToyHead::Linear, "linear"},
                                                                          {ToyHead::GMM, "gmm"},
                                                                          {ToyHead::Fourier, "fourier"},
                                                                          {ToyHead::Regression, "regression"},
                                                                          {ToyHead::GMMMLE, "gmm-mle"},
                                                                          {ToyHead::FourierMLE, "fourier-mle"}}};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// splitmix64 finaliser: decorrelates the run's streams from each other and from the data's
// Generator(seed) (Philox streams of nearby keys are independent, but distinct keys make that
// obvious rather than assumed).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Centre of each bin of [-1, 1]: bins (n) int64 -> (n) float64.
Tensor bin_centres_of(const Tensor& bins, int64_t m) { return index_select(fourier_bin_centres(m), 0, bins); }

// The single float of a 0-d float32 loss, without item()'s float64 copy.
double loss_value(const Tensor& loss) { return static_cast<double>(*loss.data<float>()); }

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

uint64_t toy_init_seed(uint64_t seed) { return mix(seed ^ 0x1417ULL); }
uint64_t toy_shuffle_seed(uint64_t seed) { return mix(seed ^ 0x5bd1e995ULL); }

int64_t toy_gmm_components(data::ToyDistribution dataset) { return dataset == data::ToyDistribution::Gaussian ? 1 : 2; }

ToyTensors toy_tensors(const data::ToyDensitySplit& split, ToyHead head) {
  if (is_mle(head)) return {split.raw_inputs, split.z.to(DType::Float32)};
  if (head == ToyHead::Regression) {
    const int64_t m = split.true_pmf.size(-1);
    return {split.bin_inputs, bin_centres_of(split.target_bins, m).to(DType::Float32)};
  }
  return {split.bin_inputs, split.target_bins};
}

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

ToyMetrics evaluate_toy_model(ToyDensityModel& model, const data::ToyDensitySplit& split) {
  NoGradGuard guard;
  const ToyHead head = model.head;
  ToyTensors t = toy_tensors(split, head);
  ToyMetrics m;
  m.kl = m.smoothness = m.mse = m.perplexity = kNaN;
  m.pred_pmf = model.predict_pmf(t.inputs);  // (n, bins)
  if (head == ToyHead::Regression) {
    // MSE of the raw prediction against z's bin centre (what the model was trained on).
    Tensor value = model.predict_value(t.inputs).to(DType::Float64);
    m.mse = mean(square(sub(value, t.targets.to(DType::Float64)))).item<double>();
    return m;
  }
  m.kl = mean(nn::kl_divergence(split.true_pmf, m.pred_pmf)).item<double>();
  m.smoothness = mean(nn::smoothness(m.pred_pmf)).item<double>();
  if (is_mle(head)) {
    Tensor p = model.density_at(t.inputs, split.z);          // (n) float64
    m.perplexity = nn::perplexity(neg(log(add(p, 1e-10))));  // the training loss's NLL
  } else {
    m.mse = nn::expected_bin_mse(m.pred_pmf, split.target_bins);
  }
  return m;
}

// -- one run ------------------------------------------------------------------------------------

ToyRunResult run_toy_density(const ToyRunConfig& config, const std::function<void(int64_t, double)>& on_epoch) {
  const auto start = std::chrono::steady_clock::now();
  check(config.epochs >= 0 && config.batch_size >= 1 && config.lr > 0 && config.sample_points >= 0, "run_toy_density",
        "need epochs >= 0, batch_size >= 1, lr > 0, sample_points >= 0; got {}, {}, {}, {}", config.epochs,
        config.batch_size, config.lr, config.sample_points);
  check(!is_mle(config.head) || config.clip_norm > 0, "run_toy_density", "clip_norm must be > 0, got {}",
        config.clip_norm);
  data::ToyDensityDataset ds = data::make_toy_density(config.dataset, config.seed, config.data_options);
  const int64_t bins = config.data_options.bins;

  Generator init_gen(toy_init_seed(config.seed)), shuffle_gen(toy_shuffle_seed(config.seed));
  ToyDensityModel model(config.head, bins, config.dataset, config.frequencies, config.gamma, &init_gen);
  std::vector<Tensor> params = model.parameters();
  optim::Adam adam(params, {.lr = config.lr});

  ToyTensors train = toy_tensors(ds.train, config.head);
  const int64_t n = train.inputs.size(0), bs = config.batch_size;
  check(n >= 1, "run_toy_density", "empty training split (dataset size {})", config.data_options.size);
  const int64_t batches = (n + bs - 1) / bs;  // the last partial batch is kept
  const bool mle = is_mle(config.head);
  // The MLE variants: cosine decay over all steps to 1e-6 (the authors' eta_min) and global
  // gradient-norm clipping.
  optim::LRScheduler scheduler(adam,
                               optim::cosine_decay(config.lr, std::max<int64_t>(1, config.epochs * batches), 1e-6));

  ToyRunResult result;
  result.config = config;
  result.epoch_losses.reserve(static_cast<size_t>(config.epochs));
  int64_t step = 0;
  for (int64_t epoch = 0; epoch < config.epochs; ++epoch) {
    // One gather per epoch; each batch is then a contiguous row slice (a view).
    Tensor perm = randperm(n, &shuffle_gen);
    Tensor inputs = index_select(train.inputs, 0, perm), targets = index_select(train.targets, 0, perm);
    double loss_sum = 0;
    for (int64_t b = 0; b < batches; ++b, ++step) {
      const int64_t lo = b * bs, hi = std::min(n, lo + bs);
      Tensor loss = model.loss(slice(inputs, 0, lo, hi), slice(targets, 0, lo, hi));
      adam.zero_grad();
      loss.backward();
      if (mle) {
        scheduler.apply(step);
        optim::clip_grad_norm_(params, config.clip_norm);
      }
      adam.step();
      loss_sum += loss_value(loss) * static_cast<double>(hi - lo);
    }
    const double mean_loss = loss_sum / static_cast<double>(n);
    result.epoch_losses.push_back(mean_loss);
    if (on_epoch) on_epoch(epoch, mean_loss);
  }

  ToyMetrics metrics = evaluate_toy_model(model, ds.test);
  result.kl = metrics.kl, result.smoothness = metrics.smoothness, result.mse = metrics.mse;
  result.perplexity = metrics.perplexity;
  const int64_t s = std::min(config.sample_points, ds.test.x.size(0));
  if (s > 0) {
    result.sample_xy = stack({slice(ds.test.x, 0, 0, s), slice(ds.test.y, 0, 0, s)}, 1).to(DType::Float64).contiguous();
    result.sample_true_pmf = slice(ds.test.true_pmf, 0, 0, s).contiguous();
    result.sample_pred_pmf = slice(metrics.pred_pmf, 0, 0, s).contiguous();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hm::models

// The "fourier-toy" task: data, model, batch order and metrics of one toy-study run.
#include "harmonic/tools/tasks/fourier_toy.h"

#include <cmath>
#include <limits>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/ops.h"

namespace hm::studies {

using models::ToyHead;

namespace {

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

}  // namespace

uint64_t toy_init_seed(uint64_t seed) { return mix(seed ^ 0x1417ULL); }
uint64_t toy_shuffle_seed(uint64_t seed) { return mix(seed ^ 0x5bd1e995ULL); }

data::Sampler toy_sampler(uint64_t seed) {
  return [stream = toy_shuffle_seed(seed)](int64_t n, int64_t epoch) {
    // randperm(n) draws n uniforms: each earlier epoch advanced the stream by counters_for(n).
    Generator gen(stream);
    gen.set_state(stream, static_cast<uint64_t>(epoch) * philox::counters_for(static_cast<uint64_t>(n)));
    Tensor perm = randperm(n, &gen);  // (n) int64
    const int64_t* p = perm.data<int64_t>();
    return std::vector<int64_t>(p, p + n);
  };
}

ToyTensors toy_tensors(const data::ToyDensitySplit& split, ToyHead head) {
  if (models::is_mle(head)) return {split.raw_inputs, split.z.to(DType::Float32)};
  if (head == ToyHead::Regression) {
    const int64_t m = split.true_pmf.size(-1);
    return {split.bin_inputs, bin_centres_of(split.target_bins, m).to(DType::Float32)};
  }
  return {split.bin_inputs, split.target_bins};
}

ToyMetrics evaluate_toy_model(models::ToyDensityModel& model, const data::ToyDensitySplit& split) {
  NoGradGuard guard;
  const ToyHead head = model.head;
  const Device device = model.device();
  ToyTensors t = toy_tensors(split, head);
  const Tensor inputs = t.inputs.to(device);  // the model's device; the metrics run on the host
  ToyMetrics m;
  m.kl = m.smoothness = m.mse = m.perplexity = kNaN;
  m.pred_pmf = model.predict_pmf(inputs).to(Device::cpu());  // (n, bins)
  if (head == ToyHead::Regression) {
    // MSE of the raw prediction against z's bin centre (what the model was trained on).
    Tensor value = model.predict_value(inputs).to(Device::cpu()).to(DType::Float64);
    m.mse = mean(square(sub(value, t.targets.to(DType::Float64)))).item<double>();
    return m;
  }
  m.kl = mean(nn::kl_divergence(split.true_pmf, m.pred_pmf)).item<double>();
  m.smoothness = mean(nn::smoothness(m.pred_pmf)).item<double>();
  if (models::is_mle(head)) {
    Tensor p = model.density_at(inputs, split.z.to(device)).to(Device::cpu());  // (n) float64
    m.perplexity = nn::perplexity(neg(log(add(p, 1e-10))));  // the training loss's NLL
  } else {
    m.mse = nn::expected_bin_mse(m.pred_pmf, split.target_bins);
  }
  return m;
}

// -- the task ---------------------------------------------------------------------------------

FourierToyTask::FourierToyTask(const Json& c, Device device) {
  const uint64_t seed = c.at("seed").get<uint64_t>();
  const auto dataset = data::parse_toy_distribution(c.at("dataset").get<std::string>());
  const ToyHead head = models::parse_toy_head(c.at("head").get<std::string>());
  const int64_t batch_size = c.at("batch_size").get<int64_t>();
  const double lr = c.at("lr").get<double>();
  data::ToyDensityOptions opts;
  opts.size = c.at("size").get<int64_t>();
  check(opts.size >= 2, "fourier-toy", "size must be >= 2, got {}", opts.size);
  check(batch_size >= 1, "fourier-toy", "batch_size must be >= 1, got {}", batch_size);
  check(lr > 0, "fourier-toy", "lr must be > 0, got {}", lr);
  ds_ = data::make_toy_density(dataset, seed, opts);
  Generator init_gen(toy_init_seed(seed));
  model_ = std::make_shared<models::ToyDensityModel>(head, opts.bins, dataset, c.at("frequencies").get<int64_t>(),
                                                     c.at("gamma").get<double>(), &init_gen);
  model_->to(device);
  ToyTensors train = toy_tensors(ds_.train, head);
  check(train.inputs.size(0) >= 1, "fourier-toy", "empty training split (dataset size {})", opts.size);
  test_ = toy_tensors(ds_.test, head);
  loader_ = std::make_unique<data::DataLoader>(
      std::make_shared<data::TensorDataset>(train.inputs, train.targets),
      data::LoaderOptions{.batch_size = batch_size, .prefetch = false, .sampler = toy_sampler(seed)});
  optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), optim::AdamOptions{.lr = lr});
}

Json FourierToyTask::evaluate() {
  metrics_ = evaluate_toy_model(*model_, ds_.test);
  Json out = Json::object();
  // Only the metrics this head has (the others are NaN).
  for (const auto& [name, v] : {std::pair<const char*, double>{"kl", metrics_.kl},
                                {"smoothness", metrics_.smoothness},
                                {"mse", metrics_.mse},
                                {"perplexity", metrics_.perplexity}})
    if (!std::isnan(v)) out[name] = v;
  return out;
}

double FourierToyTask::test_loss() {
  NoGradGuard no_grad;
  const Device device = model_->device();
  return model_->loss(test_.inputs.to(device), test_.targets.to(device)).item<double>();
}

namespace {

train::TaskSpec fourier_toy_task() {
  return {"fourier-toy",
          "Fourier head toy study, one run: MLP 2-64-32-head on gaussian|gmm2|beta, heads linear|gmm|fourier|"
          "regression|gmm-mle|fourier-mle (MLE heads: also set trainer.lr_schedule=cosine, "
          "trainer.end_lr_factor=0.001, trainer.clip_grad_norm=1, as the study does)",
          {{"seed", 1},
           {"dataset", "gmm2"},
           {"head", "fourier"},
           {"frequencies", 12},
           {"gamma", 0.0},
           {"lr", 1e-3},
           {"batch_size", 32},
           {"size", 5000},
           {"trainer", {{"epochs", 500}, {"log_every", 125}}}},
          [](const Json& config, Device device) { return std::make_unique<FourierToyTask>(config, device); }};
}

const train::TaskRegistration fourier_toy_registration{train::with_smoke(fourier_toy_task(), {{"size", 400}, {"batch_size", 64}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}})};

}  // namespace
}  // namespace hm::studies

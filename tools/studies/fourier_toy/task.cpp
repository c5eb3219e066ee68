// Task "fourier-toy": one configuration of the Fourier head paper's toy study (section 4.1;
// models/fourier_toy.h) through the generic trainer:
//   harmonic train fourier-toy --set dataset=gmm2 --set head=fourier --set frequencies=12
// The MLE heads were trained with a cosine schedule and gradient clipping: add
//   --set trainer.lr_schedule=cosine --set trainer.clip_grad_norm=1
// (the task cannot choose trainer options per head). The whole 528-run study uses
// run_toy_density directly (tools/studies/fourier_toy/study.h), not this task.
#include <cmath>

#include "data/dataset.h"
#include "models/fourier_toy.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "tools/train/task.h"

namespace hm::studies {
using namespace hm::train;
namespace {

class FourierToy : public Task {
 public:
  FourierToy(const Json& c, Device device) {
    const uint64_t seed = c.at("seed").get<uint64_t>();
    const auto dataset = data::parse_toy_distribution(c.at("dataset").get<std::string>());
    const models::ToyHead head = models::parse_toy_head(c.at("head").get<std::string>());
    data::ToyDensityOptions opts;
    opts.size = c.at("size").get<int64_t>();
    check(opts.size >= 2, "fourier-toy", "size must be >= 2, got {}", opts.size);
    ds_ = data::make_toy_density(dataset, seed, opts);
    // The same initial weights as run_toy_density with this seed.
    Generator init_gen(models::toy_init_seed(seed));
    model_ = std::make_shared<models::ToyDensityModel>(head, opts.bins, dataset, c.at("frequencies").get<int64_t>(),
                                                       c.at("gamma").get<double>(), &init_gen);
    model_->to(device);
    models::ToyTensors train = models::toy_tensors(ds_.train, head);
    loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(train.inputs, train.targets),
                                                 data::LoaderOptions{.batch_size = c.at("batch_size").get<int64_t>(),
                                                                     .shuffle = true,
                                                                     .seed = models::toy_shuffle_seed(seed),
                                                                     .prefetch = false});
    optim::AdamOptions o;
    o.lr = c.at("lr").get<double>();
    optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), o);
  }

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return model_->loss(b.input, b.target); }

  Json evaluate() override {
    models::ToyMetrics m = models::evaluate_toy_model(*model_, ds_.test);
    Json out = Json::object();
    // Only the metrics this head has (the others are NaN).
    for (const auto& [name, v] : {std::pair<const char*, double>{"kl", m.kl},
                                  {"smoothness", m.smoothness},
                                  {"mse", m.mse},
                                  {"perplexity", m.perplexity}})
      if (!std::isnan(v)) out[name] = v;
    return out;
  }

 private:
  data::ToyDensityDataset ds_;
  std::shared_ptr<models::ToyDensityModel> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
};


TaskSpec fourier_toy_task() {
  return {"fourier-toy",
          "Fourier head toy study, one run: MLP 2-64-32-head on gaussian|gmm2|beta, heads linear|gmm|fourier|"
          "regression|gmm-mle|fourier-mle (MLE heads: also set trainer.lr_schedule=cosine, trainer.clip_grad_norm=1)",
          {{"seed", 1},
           {"dataset", "gmm2"},
           {"head", "fourier"},
           {"frequencies", 12},
           {"gamma", 0.0},
           {"lr", 1e-3},
           {"batch_size", 32},
           {"size", 5000},
           {"trainer", {{"epochs", 500}, {"log_every", 125}}}},
          [](const Json& config, Device device) { return std::make_unique<FourierToy>(config, device); }};
}

const TaskRegistration registration{fourier_toy_task()};

}  // namespace
}  // namespace hm::studies

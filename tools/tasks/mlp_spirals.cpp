// Task "mlp-spirals": the demo's MLP (models/spiral_mlp.h) on the spiral toy with SGD, now
// through the Trainer (mini-batches optional, checkpoints, metrics). With the defaults
// (full batch, lr 0.5) its losses are those of `harmonic demo`.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/data/synthetic.h"
#include "harmonic/models/spiral_mlp.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/sgd.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {
namespace {

class MlpSpirals : public Task {
 public:
  MlpSpirals(const Json& c, Device device) {
    const uint64_t seed = c.at("seed").get<uint64_t>();
    const int64_t classes = c.at("classes").get<int64_t>();
    const double noise = c.at("noise").get<double>();
    check(classes >= 2 && c.at("points_per_class").get<int64_t>() >= 1, "mlp-spirals",
          "need classes >= 2 and points_per_class >= 1");
    // Data then initial weights from one generator, as the demo draws them.
    Generator gen(seed);
    train_ = data::make_spirals(c.at("points_per_class").get<int64_t>(), classes, noise, gen);
    model_ = std::make_shared<models::SpiralMLP>(2, c.at("hidden").get<int64_t>(), classes, gen);
    Generator val_gen(seed + 1);
    val_ = data::make_spirals(c.at("val_points_per_class").get<int64_t>(), classes, noise, val_gen);
    model_->to(device);
    train_eval_ = {train_.inputs.to(device), train_.labels.to(device)};
    val_ = {val_.inputs.to(device), val_.labels.to(device)};

    const int64_t n = train_.inputs.size(0);
    int64_t batch = c.at("batch_size").get<int64_t>();
    check(batch >= 0, "mlp-spirals", "batch_size must be >= 1, or 0 for the full batch; got {}", batch);
    if (batch == 0 || batch > n) batch = n;  // 0: full batch (no shuffling needed)
    loader_ = std::make_unique<data::DataLoader>(
        std::make_shared<data::TensorDataset>(train_.inputs, train_.labels),
        data::LoaderOptions{.batch_size = batch, .shuffle = batch < n, .seed = seed, .prefetch = false});
    optim::SGDOptions o;
    o.lr = c.at("lr").get<double>();
    o.momentum = c.at("momentum").get<double>();
    optimizer_ = std::make_unique<optim::SGD>(model_->named_parameters(), o);
  }

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return cross_entropy(model_->forward(b.input), b.target); }

  Json evaluate() override { return {{"train_accuracy", accuracy(train_eval_)}}; }
  // The separately drawn validation spirals (recorded as val_loss, val_accuracy).
  Json validate() override {
    return {{"loss", cross_entropy(model_->forward(val_.inputs), val_.labels).item<double>()},
            {"accuracy", accuracy(val_)}};
  }

 private:
  double accuracy(const data::Classification& d) {
    return mean(eq(argmax(model_->forward(d.inputs), 1), d.labels).to(DType::Float64)).item<double>();
  }

  data::Classification train_, train_eval_, val_;  // train_ on the CPU for the loader
  std::shared_ptr<models::SpiralMLP> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::SGD> optimizer_;
};

TaskSpec mlp_spirals_task() {
  return {"mlp-spirals",
          "3-class spiral toy, 2-64-64-3 ReLU MLP, SGD (the `harmonic demo` model)",
          {{"seed", 1},
           {"points_per_class", 200},
           {"val_points_per_class", 100},
           {"classes", 3},
           {"noise", 0.2},
           {"hidden", 64},
           {"lr", 0.5},
           {"momentum", 0.0},
           {"batch_size", 0},
           {"trainer", {{"epochs", 300}, {"log_every", 25}, {"eval_every", 100}}}},
          [](const Json& config, Device device) { return std::make_unique<MlpSpirals>(config, device); }};
}

const TaskRegistration mlp_spirals_registration{with_smoke(mlp_spirals_task(), {{"points_per_class", 50}, {"val_points_per_class", 20}, {"hidden", 16}, {"batch_size", 32}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}})};

}  // namespace
}  // namespace hm::train

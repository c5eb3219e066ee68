// Task "fashion-mlp": a 784-256-10 ReLU MLP classifier on Fashion-MNIST with Adam, the
// training stack's real-data check (about 85% test accuracy after one epoch). val_fraction
// of the training images (default 10%) is held out as the validation split (Task::validate);
// the test set is untouched.
#include <algorithm>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/data/datasets.h"
#include "harmonic/data/split.h"
#include "harmonic/nn/sequential.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/classifier_metrics.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {
namespace {

// The first `limit` examples (0: all) as (N, 784) float32 images and (N,) labels.
std::pair<Tensor, Tensor> flat_split(const std::string& split, int64_t limit) {
  data::LabeledImages d = data::load_fashion_mnist(split, limit);
  return {reshape(d.images, {d.images.size(0), 28 * 28}).contiguous(), d.labels};
}

class FashionMlp : public Task {
 public:
  FashionMlp(const Json& c, Device device) : device_(device) {
    check(
        data::fashion_mnist_available(), "fashion-mlp",
        "Fashion-MNIST is not installed (Debian package dataset-fashion-mnist): install with `bash .ci/install-data`");
    const uint64_t seed = c.at("seed").get<uint64_t>();
    auto [train_x, train_y] = flat_split("train", c.at("train_subset").get<int64_t>());
    auto [test_x, test_y] = flat_split("test", c.at("test_subset").get<int64_t>());
    test_x_ = test_x.to(device), test_y_ = test_y.to(device);
    const int64_t batch = c.at("batch_size").get<int64_t>();
    check(batch >= 1, "fashion-mlp", "batch_size must be >= 1, got {}", batch);
    data::DatasetSplit split = data::split_dataset(std::make_shared<data::TensorDataset>(train_x, train_y),
                                                   c.at("val_fraction").get<double>(), seed);
    if (split.held_out->size() > 0) {
      data::Batch val = split.held_out->head(split.held_out->size());
      val_x_ = val.input.to(device), val_y_ = val.target.to(device);
    }

    Generator gen(seed);
    model_ = nn::make_mlp({28 * 28, c.at("hidden").get<int64_t>(), 10}, "relu", 0.0, &gen);
    model_->to(device);
    loader_ = std::make_unique<data::DataLoader>(
        split.train, data::LoaderOptions{.batch_size = batch, .shuffle = true, .seed = seed});
    optim::AdamOptions o;
    o.lr = c.at("lr").get<double>();
    o.weight_decay = c.at("weight_decay").get<double>();
    optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), o);
  }

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return cross_entropy(model_->forward(b.input), b.target); }

  Json evaluate() override { return metrics(test_x_, test_y_).to_json("test_"); }
  Json validate() override { return val_x_.defined() ? metrics(val_x_, val_y_).to_json("") : Json::object(); }

 private:
  // Over (N, 784) images x and (N,) labels y.
  ClassifierMetrics metrics(const Tensor& x, const Tensor& y) { return classifier_metrics(*model_, x, y, 2000); }

  Device device_;
  Tensor val_x_, val_y_;    // (V, 784), (V,) on the device; undefined when val_fraction is 0
  Tensor test_x_, test_y_;  // (N, 784), (N,) on the device
  std::shared_ptr<nn::Sequential> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
};

TaskSpec fashion_mlp_task() {
  return {"fashion-mlp",
          "Fashion-MNIST 784-256-10 ReLU MLP classifier, Adam (needs dataset-fashion-mnist)",
          {{"seed", 0},
           {"hidden", 256},
           {"lr", 1e-3},
           {"weight_decay", 0.0},
           {"batch_size", 128},
           {"val_fraction", 0.1},
           {"train_subset", 0},
           {"test_subset", 0},
           {"trainer", {{"epochs", 1}, {"log_every", 50}}}},
          [](const Json& config, Device device) { return std::make_unique<FashionMlp>(config, device); }};
}

const TaskRegistration fashion_mlp_registration{with_smoke(fashion_mlp_task(), {{"hidden", 32}, {"batch_size", 32}, {"train_subset", 256}, {"test_subset", 128}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}})};

}  // namespace
}  // namespace hm::train

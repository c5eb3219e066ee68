// Task "fashion-mlp": a 784-256-10 ReLU MLP classifier on Fashion-MNIST with Adam, the
// training stack's real-data check (about 85% test accuracy after one epoch).
#include <algorithm>

#include "autograd/grad_mode.h"
#include "data/datasets.h"
#include "nn/sequential.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "tools/train/task.h"

namespace hm::train {
namespace {

// The first `limit` examples (0: all) as (N, 784) float32 images and (N,) labels.
std::pair<Tensor, Tensor> flat_split(const std::string& split, int64_t limit) {
  data::LabeledImages d = data::load_fashion_mnist(split);
  const int64_t n = limit > 0 ? std::min(limit, d.images.size(0)) : d.images.size(0);
  return {reshape(slice(d.images, 0, 0, n), {n, 28 * 28}).contiguous(), slice(d.labels, 0, 0, n).contiguous()};
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

    Generator gen(seed);
    model_ = nn::make_mlp({28 * 28, c.at("hidden").get<int64_t>(), 10}, "relu", 0.0, &gen);
    model_->to(device);
    loader_ = std::make_unique<data::DataLoader>(
        std::make_shared<data::TensorDataset>(train_x, train_y),
        data::LoaderOptions{.batch_size = c.at("batch_size").get<int64_t>(), .shuffle = true, .seed = seed});
    optim::AdamOptions o;
    o.lr = c.at("lr").get<double>();
    o.weight_decay = c.at("weight_decay").get<double>();
    optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), o);
  }

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return cross_entropy(model_->forward(b.input), b.target); }

  Json evaluate() override {
    const int64_t n = test_x_.size(0), chunk = 2000;
    double loss_sum = 0, correct = 0;
    for (int64_t i = 0; i < n; i += chunk) {
      const int64_t e = std::min(n, i + chunk);
      Tensor logits = model_->forward(slice(test_x_, 0, i, e));  // (chunk, 10)
      Tensor y = slice(test_y_, 0, i, e);
      loss_sum += cross_entropy(logits, y).item<double>() * static_cast<double>(e - i);
      correct += sum(eq(argmax(logits, 1), y).to(DType::Float64)).item<double>();
    }
    return {{"test_loss", loss_sum / static_cast<double>(n)}, {"test_accuracy", correct / static_cast<double>(n)}};
  }

 private:
  Device device_;
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
           {"train_subset", 0},
           {"test_subset", 0},
           {"trainer", {{"epochs", 1}, {"log_every", 50}}}},
          [](const Json& config, Device device) { return std::make_unique<FashionMlp>(config, device); }};
}

const TaskRegistration registration{fashion_mlp_task()};

}  // namespace
}  // namespace hm::train

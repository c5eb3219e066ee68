// What the FRU paper's three tasks (fru-synthetic, fru-image, fru-text) share as train::Tasks:
// one recurrent model, Adam at the config's "lr" over its parameters, a shuffled loader over the
// training set, the test set on the device and the probe of Figure 5 (`harmonic grads
// --over-time`). A task builds its model, probe and data, then calls set_training(); it says
// its own loss and evaluation.
#pragma once
#include <cstdint>
#include <memory>

#include "harmonic/data/loader.h"
#include "harmonic/nn/module.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

class FruTask : public Task {
 public:
  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  RecurrentProbe* recurrent_probe() override { return probe_.get(); }

 protected:
  // Batches of `batch` examples of train, shuffled from `seed`, and Adam at `lr` over the
  // model's parameters (after the model is on its device).
  void set_training(std::shared_ptr<const data::Dataset> train, int64_t batch, uint64_t seed, double lr) {
    loader_ = std::make_unique<data::DataLoader>(
        std::move(train), data::LoaderOptions{.batch_size = batch, .shuffle = true, .seed = seed});
    optim::AdamOptions o;
    o.lr = lr;
    optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), o);
  }

  std::shared_ptr<nn::UnaryModule> model_;
  std::unique_ptr<RecurrentProbe> probe_;
  Tensor test_x_, test_y_;  // the test inputs and targets on the device (shapes: the task's)

 private:
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
};

}  // namespace hm::train

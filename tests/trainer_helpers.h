// Shared pieces of the trainer tests: a JSON-lines reader, which registered tasks are the
// product's and have their data here, the small mini-batch spirals config, and a scripted task
// whose validation metric follows a given sequence.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "harmonic/nn/linear.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/sgd.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/data_helpers.h"

namespace hm::test {

inline std::vector<train::Json> read_jsonl(const std::string& path) {
  std::vector<train::Json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(train::Json::parse(line));
  return out;
}

// Tasks and studies the suite registers for its own tests (driver fakes, probes) are not the
// product's: they are named fake-* or test-*.
inline bool test_only(const std::string& name) {
  return name.rfind("fake-", 0) == 0 || name.rfind("test-", 0) == 0;
}

// The Debian data set a task or study (in its smoke config) reads, skipped visibly without it.
inline bool data_available_for(const std::string& name) {
  for (const char* n : {"fashion-mlp", "fashion-vit", "fru-image"})
    if (name == n) return have_fashion();
  for (const char* n : {"fru-text", "kjv-lm", "fourierformer"})
    if (name == n) return have_kjv();
  return true;
}

// A small mini-batch spirals run: 150 points in batches of 32 (5 per epoch, the last one
// short), SGD with momentum so the optimizer has state to carry.
inline train::Json small_spirals(int64_t steps) {
  train::Json c = train::default_config(train::find_task("mlp-spirals"));
  for (const char* s : {"points_per_class=50", "val_points_per_class=20", "hidden=16", "batch_size=32", "momentum=0.9",
                        "lr=0.1", "trainer.log_every=3", "trainer.eval_every=5"})
    train::apply_override(c, s);
  train::apply_override(c, fmt::format("trainer.steps={}", steps));
  return c;
}

// Linear regression y = x w on 8 fixed points (batches of 4); validate() returns the next
// value of `script` as "loss" (then repeats the last one), so tests choose when the
// monitored metric improves.
class ScriptedTask : public train::Task {
 public:
  explicit ScriptedTask(std::vector<double> script) : script_(std::move(script)) {
    Generator gen(3);
    model_ = std::make_shared<nn::Linear>(2, 1, true, &gen);
    Tensor x = randn({8, 2}, {}, &gen);  // (8, 2)
    Tensor y = randn({8, 1}, {}, &gen);  // (8, 1)
    loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(x, y),
                                                 data::LoaderOptions{.batch_size = 4, .prefetch = false});
    optimizer_ = std::make_unique<optim::SGD>(model_->named_parameters(), optim::SGDOptions{.lr = 0.1});
  }
  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return mse_loss(model_->forward(b.input), b.target); }
  train::Json evaluate() override { return {{"test_metric", 1.0}}; }
  train::Json validate() override {
    const double v = script_[std::min(calls_++, script_.size() - 1)];
    return {{"loss", v}};
  }
  // A config for it: the trainer defaults, then the given --set overrides.
  static train::Json config(const std::vector<std::string>& sets) {
    train::Json c = {{"seed", 0}, {"lr", 0.1}, {"trainer", train::TrainerOptions{}.to_json()}};
    for (const std::string& s : sets) train::apply_override(c, s);
    return c;
  }

 private:
  std::vector<double> script_;
  size_t calls_ = 0;
  std::shared_ptr<nn::Linear> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::SGD> optimizer_;
};

}  // namespace hm::test

// A user's own training executable: one task, registered at static initialisation, trained
// by the library's `train`/`eval`/`grads` commands (tools/train/train_cli.h):
//
//   ./my_task train my-task --out runs/mine --set trainer.steps=200 --set lr=0.05
//   ./my_task eval --out runs/mine
//
// The task: fit y = sin(3x) + noise on [-1, 1] with a 1-32-1 tanh MLP and Adam; a 20%
// validation split (data::split_dataset) beside a separately drawn test set.
#include <numeric>

#include <harmonic/harmonic.h>

namespace {
using namespace hm;
using hm::train::Json;

// n points (x, sin(3x) + noise): ((n, 1), (n, 1)) float32.
std::pair<Tensor, Tensor> draw(int64_t n, double noise, Generator& gen) {
  Tensor x = sub(mul(rand({n, 1}, {}, &gen), 2.0), 1.0);
  Tensor y = add(sin(mul(x, 3.0)), mul(randn({n, 1}, {}, &gen), noise));
  return {x, y};
}

class MyTask : public train::Task {
 public:
  MyTask(const Json& c, Device device) {
    Generator gen(c.at("seed").get<uint64_t>());
    auto [x, y] = draw(c.at("points").get<int64_t>(), c.at("noise").get<double>(), gen);
    auto [tx, ty] = draw(200, 0.0, gen);
    test_x_ = tx.to(device), test_y_ = ty.to(device);
    data::DatasetSplit split = data::split_dataset(std::make_shared<data::TensorDataset>(x, y), 0.2, 7);
    std::vector<int64_t> all(static_cast<size_t>(split.held_out->size()));
    std::iota(all.begin(), all.end(), int64_t{0});
    data::Batch val = split.held_out->get_batch(all);
    val_x_ = val.input.to(device), val_y_ = val.target.to(device);
    model_ = nn::make_mlp({1, c.at("hidden").get<int64_t>(), 1}, "tanh", 0.0, &gen);
    model_->to(device);
    loader_ = std::make_unique<data::DataLoader>(
        split.train, data::LoaderOptions{.batch_size = c.at("batch_size").get<int64_t>(), .shuffle = true, .seed = 1});
    optim::AdamOptions o;
    o.lr = c.at("lr").get<double>();
    optimizer_ = std::make_unique<optim::Adam>(model_->named_parameters(), o);
  }
  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return mse_loss(model_->forward(b.input), b.target); }
  Json evaluate() override { return {{"test_mse", mse_loss(model_->forward(test_x_), test_y_).item<double>()}}; }
  Json validate() override { return {{"loss", mse_loss(model_->forward(val_x_), val_y_).item<double>()}}; }

 private:
  Tensor val_x_, val_y_, test_x_, test_y_;  // (V, 1) each
  std::shared_ptr<nn::Sequential> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
};

const train::TaskRegistration registration{
    {"my-task",
     "y = sin(3x) regression, 1-32-1 tanh MLP, Adam (the user-task example)",
     {{"seed", 0},
      {"points", 500},
      {"noise", 0.1},
      {"hidden", 32},
      {"lr", 1e-2},
      {"batch_size", 50},
      {"trainer", {{"epochs", 20}, {"eval_every", 10}, {"monitor", "val_loss"}}}},
     [](const Json& config, Device device) { return std::make_unique<MyTask>(config, device); }}};

}  // namespace

int main(int argc, char** argv) { return hm::train::train_main(argc, argv); }

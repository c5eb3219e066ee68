#include "models/mlp_demo.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "core/factories.h"
#include "data/synthetic.h"
#include "ops/ops.h"

namespace hm::models {
namespace {

// PyTorch's default Linear init: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias.
Tensor init_uniform(const Shape& shape, int64_t fan_in, Generator& gen) {
  double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return uniform(shape, -bound, bound, {}, &gen).requires_grad_(true);
}

}  // namespace

SpiralDemoResult train_spiral_mlp(const SpiralDemoConfig& cfg, const std::function<void(int64_t, double)>& on_epoch) {
  Generator gen(cfg.seed);
  data::Classification data = data::make_spirals(cfg.points_per_class, cfg.classes, 0.2, gen);
  const int64_t h = cfg.hidden;
  std::vector<Tensor> params = {
      init_uniform({h, 2}, 2, gen), init_uniform({h}, 2, gen),                               // layer 1
      init_uniform({h, h}, h, gen), init_uniform({h}, h, gen),                               // layer 2
      init_uniform({cfg.classes, h}, h, gen), init_uniform({cfg.classes}, h, gen)};          // output
  auto forward = [&](const Tensor& x) {                                                       // x (N, 2)
    Tensor a = relu(linear(x, params[0], params[1]));                                         // (N, h)
    Tensor b = relu(linear(a, params[2], params[3]));                                         // (N, h)
    return linear(b, params[4], params[5]);                                                   // (N, classes)
  };

  SpiralDemoResult result;
  for (int64_t epoch = 0; epoch < cfg.epochs; ++epoch) {
    Tensor loss = cross_entropy(forward(data.inputs), data.labels);
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor& p : params) {
        add_(p, p.grad(), -cfg.learning_rate);
        p.zero_grad();
      }
    }
    result.losses.push_back(loss.item<double>());
    if (on_epoch) on_epoch(epoch, result.losses.back());
  }
  NoGradGuard no_grad;
  Tensor predicted = argmax(forward(data.inputs), 1);
  result.accuracy = mean(eq(predicted, data.labels).to(DType::Float64)).item<double>();
  return result;
}

}  // namespace hm::models

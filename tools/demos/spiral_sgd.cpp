#include "harmonic/tools/demos/spiral_sgd.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/synthetic.h"
#include "harmonic/models/spiral_mlp.h"
#include "harmonic/ops/ops.h"

namespace hm::demos {

SpiralDemoResult train_spiral_mlp(const SpiralDemoConfig& cfg, const std::function<void(int64_t, double)>& on_epoch) {
  Generator gen(cfg.seed);
  data::Classification data = data::make_spirals(cfg.points_per_class, cfg.classes, 0.2, gen);
  models::SpiralMLP model(2, cfg.hidden, cfg.classes, gen);
  const Device device = Device::parse(cfg.device);
  model.to(device);
  data.inputs = data.inputs.to(device), data.labels = data.labels.to(device);
  std::vector<Tensor> params = model.parameters();
  auto forward = [&](const Tensor& x) { return model.forward(x); };

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

}  // namespace hm::demos

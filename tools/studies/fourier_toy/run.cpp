#include "harmonic/tools/studies/fourier_toy/run.h"

#include <algorithm>
#include <chrono>

#include "harmonic/ops/ops.h"
#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {

Json toy_task_config(const ToyRunConfig& c) {
  const bool mle = models::is_mle(c.head);
  Json trainer = train::TrainerOptions{}.to_json();
  trainer["epochs"] = c.epochs;
  trainer["log_every"] = 125;
  if (mle) {  // the authors' MLE recipe: cosine decay to eta_min 1e-6 and global-norm clipping
    trainer["lr_schedule"] = "cosine";
    trainer["end_lr_factor"] = 1e-6 / c.lr;
    trainer["clip_grad_norm"] = c.clip_norm;
  }
  return {{"seed", c.seed},
          {"dataset", data::toy_distribution_name(c.dataset)},
          {"head", models::toy_head_name(c.head)},
          {"frequencies", c.frequencies},
          {"gamma", c.gamma},
          {"lr", c.lr},
          {"batch_size", c.batch_size},
          {"size", c.data_options.size},
          {"trainer", std::move(trainer)}};
}

ToyRunResult run_toy_density(const ToyRunConfig& config, const std::function<void(int64_t, double)>& on_epoch) {
  const auto start = std::chrono::steady_clock::now();
  check(config.epochs >= 0 && config.batch_size >= 1 && config.lr > 0 && config.sample_points >= 0, "run_toy_density",
        "need epochs >= 0, batch_size >= 1, lr > 0, sample_points >= 0; got {}, {}, {}, {}", config.epochs,
        config.batch_size, config.lr, config.sample_points);
  check(!models::is_mle(config.head) || config.clip_norm > 0, "run_toy_density", "clip_norm must be > 0, got {}",
        config.clip_norm);
  const data::ToyDensityOptions& o = config.data_options, d{};
  check(o.bins == d.bins && o.variance == d.variance && o.low == d.low && o.high == d.high &&
            o.train_fraction == d.train_fraction,
        "run_toy_density", "only the dataset size may differ from the paper's data options (the task's 'size')");
  const Json task_config = toy_task_config(config);
  FourierToyTask task(task_config, Device::parse(config.device));

  ToyRunResult result;
  result.config = config;
  result.epoch_losses.reserve(static_cast<size_t>(config.epochs));
  const int64_t n = task.train_loader().dataset().size(), bs = config.batch_size;
  const int64_t batches = task.train_loader().num_batches();
  double loss_sum = 0;  // of the current epoch, weighted by batch size (the last batch is partial)

  train::Trainer trainer(task, "fourier-toy", task_config, "");
  quiet_study_trainer(trainer, models::is_mle(config.head));  // only clipping needs the norm
  trainer.on_step = [&](const train::StepRecord& r) {
    const int64_t b = (r.step - 1) % batches, epoch = (r.step - 1) / batches;  // 0-based
    loss_sum += r.loss * static_cast<double>(std::min(bs, n - b * bs));
    if (b + 1 < batches) return;
    const double mean_loss = loss_sum / static_cast<double>(n);
    loss_sum = 0;
    result.epoch_losses.push_back(mean_loss);
    if (on_epoch) on_epoch(epoch, mean_loss);
    if ((epoch + 1) % kToyTestLossEvery == 0 || epoch + 1 == config.epochs)
      result.test_losses.emplace_back(epoch + 1, task.test_loss());
  };
  if (config.epochs > 0) {
    fit_or_interrupt(trainer);
  } else {
    trainer.evaluate();  // the untrained model's metrics
  }

  const ToyMetrics& metrics = task.last_metrics();
  result.kl = metrics.kl, result.smoothness = metrics.smoothness, result.mse = metrics.mse;
  result.perplexity = metrics.perplexity;
  const data::ToyDensitySplit& test = task.dataset().test;
  const int64_t s = std::min(config.sample_points, test.x.size(0));
  if (s > 0) {
    result.sample_xy = stack({slice(test.x, 0, 0, s), slice(test.y, 0, 0, s)}, 1).to(DType::Float64).contiguous();
    result.sample_true_pmf = slice(test.true_pmf, 0, 0, s).contiguous();
    result.sample_pred_pmf = slice(metrics.pred_pmf, 0, 0, s).contiguous();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/fru/run.h"

#include <algorithm>

#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace {

// The word embedding's elements (fru-text's "embed.weight"); 0 for models without one.
int64_t embedding_params(const nn::Module& model) {
  int64_t n = 0;
  for (const auto& [name, p] : model.named_parameters())
    if (name.starts_with("embed.")) n += p.numel();
  return n;
}

}  // namespace

Json run_fru(const FruRunSpec& run, const std::string& work_dir) {
  const train::TaskSpec& spec = train::find_task(fru_task_name(run.part));
  Json config = train::default_config(spec);
  train::merge_config(config, run.task_config, "study fru");
  // Evaluate after every epoch (the curves of Figures 3, 4, 6, 7, 8).
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::parse(run.device));
  const int64_t per_epoch = task->train_loader().num_batches();
  config["trainer"]["accumulate"] = 1;
  config["trainer"]["eval_every"] = per_epoch;
  config["trainer"]["log_every"] = per_epoch;
  StudyFit::configure(config, work_dir);

  const std::string metric = fru_metric(run.part);
  Json result = {{"params", task->model().num_parameters()},
                 {"embedding_params", embedding_params(task->model())},
                 {"curve", Json::array()},
                 {"train_loss", Json::array()},
                 {"grad_flow", Json::array()}};
  auto record_eval = [&](int64_t epoch, const Json& metrics) {
    Json point = {{"epoch", epoch}};
    for (const auto& [k, v] : metrics.items()) point[k] = v;
    result["curve"].push_back(point);
    result["final"] = metrics;
  };
  data::Batch grad_batch;
  // The first training examples: the fixed batch Figure 5 measures on.
  if (!run.grad_epochs.empty()) grad_batch = task->train_loader().dataset().head(run.grad_batch);
  auto measure_grads = [&](int64_t epoch) {
    if (std::find(run.grad_epochs.begin(), run.grad_epochs.end(), epoch) == run.grad_epochs.end()) return;
    Json g = train::to_json(train::gradient_over_time(*task, grad_batch, 20));
    g["epoch"] = epoch;
    result["grad_flow"].push_back(std::move(g));
  };

  train::Trainer trainer(*task, spec.name, config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = [&](int64_t step, const Json& metrics) { record_eval(step / per_epoch, metrics); };
  StudyFit fit(trainer, result);
  fit.on_step = [&](const train::StepRecord& r) {
    if (const auto mean = interval_mean_loss(fit.state, r, per_epoch)) {  // the epoch's mean loss
      result["train_loss"].push_back(*mean);
      measure_grads(r.step / per_epoch);
    }
  };

  if (!fit.resumed()) {
    record_eval(0, trainer.evaluate());  // the untrained model
    measure_grads(0);
  }
  fit.fit();
  result["epochs"] = trainer.step() / per_epoch;
  return result;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/decision_transformer/run.h"

#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {

Json run_decision_transformer(const HeadRunSpec& run, const std::string& work_dir) {
  auto [config, task] =
      make_study_task("arcade-dt", run.task_config, run.device, work_dir, "study decision-transformer");
  Json& trainer_config = config["trainer"];
  int64_t eval_every = trainer_config.at("eval_every").get<int64_t>();
  if (eval_every <= 0) eval_every = task->train_loader().num_batches();  // once per epoch
  trainer_config["eval_every"] = eval_every;
  trainer_config["log_every"] = eval_every;

  Json result = {
      {"params", task->model().num_parameters()}, {"curve", Json::array()}, {"final", nullptr}, {"best", nullptr}};
  auto record = [&](int64_t step, const Json& m) {
    const Json* point = record_eval(result, step, m,
                                    {"return_mean", "normalized_return_mean", "normalized_return_std", "val_smoothness",
                                     "val_loss", "val_accuracy"});
    if (!point) return;
    result["random_return"] = m.at("random_return");
    result["expert_return"] = m.at("expert_return");
    const Json& best = result["best"];
    if (step > 0 && (best.is_null() || point->at("normalized_return_mean").get<double>() >
                                           best.at("normalized_return_mean").get<double>()))
      result["best"] = *point;
  };

  train::Trainer trainer(*task, "arcade-dt", config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = record;
  StudyFit fit(trainer, result);
  if (!fit.resumed()) record(0, trainer.evaluate());  // the untrained model
  fit.fit("windows_per_second");
  return result;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/fourierformer/run.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace {

// A metric object with every number replaced by null: the "final" of a diverged run, whose
// weights are no longer a trained model.
Json nulled(const Json& metrics) {
  Json out = Json::object();
  for (const auto& [k, v] : metrics.items()) out[k] = nullptr;
  return out;
}

}  // namespace

Json run_fourierformer(const FfRunSpec& run, const std::string& study_dir, const std::string& work_dir) {
  auto [config, task] =
      make_study_task(ff_task_name(run.task), run.task_config, run.device, work_dir, "study fourierformer");
  Json& trainer_config = config["trainer"];
  // The ViT is evaluated after every epoch; the language model every trainer.eval_every steps.
  if (run.task == FfTask::Vit) trainer_config["eval_every"] = task->train_loader().num_batches();
  const int64_t eval_every = trainer_config.at("eval_every").get<int64_t>();
  trainer_config["log_every"] = eval_every;
  // Tokens per example for the LM (each of the block's positions is a prediction), 1 image for the ViT.
  const double per_item = run.task == FfTask::Lm ? config.at("block_size").get<double>() : 1.0;

  Json result = {{"params", task->model().num_parameters()},
                 {"curve", Json::array()},
                 {"train_loss", Json::array()},
                 {"final", nullptr},
                 {"diverged", nullptr}};
  auto record = [&](int64_t step, const Json& metrics) { record_eval(result, step, metrics); };

  train::Trainer trainer(*task, ff_task_name(run.task), config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = record;
  StudyFit fit(trainer, result);
  fit.on_step = [&](const train::StepRecord& r) {
    if (const auto mean = interval_mean_loss(fit.state, r, eval_every))
      result["train_loss"].push_back({{"step", r.step}, {"loss", *mean}});
  };

  if (!fit.resumed()) record(0, trainer.evaluate());  // the untrained model
  try {
    fit.fit("items_per_second", per_item);
  } catch (const train::NonFiniteLoss& e) {
    // The paper's odd powers "do not converge": record where, keep the curve up to there.
    result["diverged"] = {{"step", e.step}, {"loss", fmt::format("{}", e.loss)}};
    result["final"] = nulled(result["curve"].back());
    result["final"].erase("step");
  }
  // The main language models stay usable: `harmonic sample --checkpoint DIR/models/<name>`.
  if (run.save_model && run.task == FfTask::Lm && result.at("diverged").is_null() && !study_dir.empty()) {
    auto* lm = dynamic_cast<train::KjvLmTask*>(task.get());
    check(lm != nullptr, "study fourierformer", "run '{}': kjv-lm did not build a KjvLmTask", ff_run_label(run));
    const std::string dir = (std::filesystem::path(study_dir) / "models" / ff_model_dir_name(run)).string();
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path());
    train::save_language_model(dir, lm->gpt(), lm->tokenizer(), lm->config());
    result["model_dir"] = (std::filesystem::path("models") / ff_model_dir_name(run)).string();
  }
  return result;
}

}  // namespace hm::studies

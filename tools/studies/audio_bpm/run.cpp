#include "harmonic/tools/studies/audio_bpm/run.h"

#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {

Json run_audio_bpm(const HeadRunSpec& run, const std::string& work_dir) {
  auto [config, task] = make_study_task("audio-bpm", run.task_config, run.device, work_dir, "study audio-bpm");
  Json& trainer_config = config["trainer"];
  const int64_t steps = trainer_config.at("steps").get<int64_t>();
  if (trainer_config.at("eval_every").get<int64_t>() <= 0) trainer_config["eval_every"] = steps;  // at the end only
  trainer_config["log_every"] = trainer_config["eval_every"];

  Json result = {{"params", task->model().num_parameters()}, {"curve", Json::array()}, {"final", nullptr}};
  auto record = [&](int64_t step, const Json& m) {
    record_eval(result, step, m, {"loss", "accuracy", "macro_f1", "within_one_accuracy", "smoothness"});
  };

  train::Trainer trainer(*task, "audio-bpm", config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = record;
  StudyFit fit(trainer, result);
  fit.fit("clips_per_second");
  return result;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/audio_bpm/run.h"

#include "harmonic/tools/studies/driver/study_trainer.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {

Json run_audio_bpm(const HeadRunSpec& run, const std::string& work_dir) {
  const train::TaskSpec& spec = train::find_task("audio-bpm");
  Json config = train::default_config(spec);
  train::merge_config(config, run.task_config, "study audio-bpm");
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::parse(run.device));
  Json& trainer_config = config["trainer"];
  trainer_config["accumulate"] = 1;
  trainer_config["checkpoint_every"] = 0;
  const int64_t steps = trainer_config.at("steps").get<int64_t>();
  if (trainer_config.at("eval_every").get<int64_t>() <= 0) trainer_config["eval_every"] = steps;  // at the end only
  trainer_config["log_every"] = trainer_config["eval_every"];
  StudyFit::configure(config, work_dir);

  Json result = {{"params", task->model().num_parameters()}, {"curve", Json::array()}, {"final", nullptr}};
  auto record = [&](int64_t step, const Json& m) {
    record_eval(result, step, m, {"loss", "accuracy", "macro_f1", "within_one_accuracy", "smoothness"});
  };

  train::Trainer trainer(*task, spec.name, config, work_dir);
  quiet_study_trainer(trainer);
  trainer.on_eval = record;
  StudyFit fit(trainer, result);
  fit.fit("clips_per_second");
  return result;
}

}  // namespace hm::studies

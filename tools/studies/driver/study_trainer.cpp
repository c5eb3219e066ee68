#include "harmonic/tools/studies/driver/study_trainer.h"

#include <filesystem>

#include "harmonic/core/error.h"
#include "harmonic/tools/train/config.h"

namespace hm::studies {

StudyTask make_study_task(const std::string& name, const Json& overrides, const std::string& device,
                          const std::string& work_dir, std::string_view where) {
  const train::TaskSpec& spec = train::find_task(name);
  StudyTask out{train::default_config(spec), nullptr};
  train::merge_config(out.config, overrides, std::string(where));
  out.task = train::build_task(spec, out.config, Device::parse(device));
  Json& trainer = out.config["trainer"];
  trainer["accumulate"] = 1;
  trainer["checkpoint_every"] = 0;
  StudyFit::configure(out.config, work_dir);
  return out;
}

void StudyFit::configure(Json& config, const std::string& work_dir) {
  config["trainer"]["checkpoint_seconds"] = work_dir.empty() ? 0.0 : kStudyCheckpointSeconds;
  config["trainer"]["test_metrics"] = "every";  // the papers' curves are test curves
}

StudyFit::StudyFit(train::Trainer& trainer, Json& result) : trainer_(trainer), result_(result) {
  trainer_.on_step = [this](const train::StepRecord& r) {
    items_ += static_cast<double>(r.items);
    if (on_step) on_step(r);
  };
  trainer_.checkpoint_state = [this] { return Json{{"result", result_}, {"state", state}, {"items", items_}}; };
  if (trainer_.out_dir().empty() || !std::filesystem::exists(trainer_.checkpoint_path())) return;
  const Json saved = trainer_.resume(trainer_.checkpoint_path());
  check(saved.is_object() && saved.contains("result") && saved.contains("items") && saved["items"].is_number() &&
            saved.value("state", Json::object()).is_object(),
        "study",
        "'{}' holds no study run's state (its \"caller_state\" is {}): delete the directory to start the run over",
        trainer_.checkpoint_path(), saved.dump());
  result_ = saved["result"];
  state = saved.value("state", Json::object());  // absent: written before runs kept a state
  items_ = saved["items"].get<double>();
  resumed_ = true;
  // Where this session took over, recorded with the run (the driver reads the same seconds from
  // the checkpoint for the run's wall time: work_dir_training_seconds).
  result_["resumed"] = {{"step", trainer_.step()}, {"train_seconds", trainer_.elapsed_seconds()}};
}

void StudyFit::fit(const char* rate_key, double units_per_item) {
  try {
    fit_or_interrupt(trainer_);
  } catch (const train::NonFiniteLoss&) {
    record_speed(rate_key, units_per_item);
    throw;
  }
  record_speed(rate_key, units_per_item);
}

void StudyFit::record_speed(const char* rate_key, double units_per_item) {
  const double seconds = trainer_.elapsed_seconds();
  result_["steps"] = trainer_.step();
  result_["train_seconds"] = seconds;
  if (rate_key) result_[rate_key] = seconds > 0 ? units_per_item * items_ / seconds : 0.0;
}

std::optional<double> interval_mean_loss(Json& state, const train::StepRecord& r, int64_t every) {
  const double sum = state.value("loss_sum", 0.0) + r.loss;
  const int64_t count = state.value("loss_count", int64_t{0}) + 1;
  if (r.step % every != 0) {
    state["loss_sum"] = sum, state["loss_count"] = count;
    return std::nullopt;
  }
  state["loss_sum"] = 0.0, state["loss_count"] = 0;
  return sum / static_cast<double>(count);
}

}  // namespace hm::studies

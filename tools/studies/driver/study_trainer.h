// What every study run does with its Trainer: run quietly under the study driver and turn an
// interrupted fit into train::RunInterrupted, so the driver records nothing for that run and
// runs it again on --resume; with a work directory, checkpoint mid-run so that it continues
// from where it stopped (StudyFit).
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "harmonic/tools/studies/driver/projection.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {

using Json = nlohmann::json;

// No log lines (the driver prints one per run), no SIGINT handler (the driver owns Ctrl-C and
// stops the runs in flight), gradient norms only when a run needs them (clipping, a metric).
// Under `--project` (projection.h) the trainer also gets the projection's profile and step limit.
inline void quiet_study_trainer(train::Trainer& trainer, bool measure_grad_norm = false) {
  trainer.log = nullptr;
  trainer.handle_sigint = false;
  trainer.measure_grad_norm = measure_grad_norm;
  projection_limit(trainer);
}

// trainer.fit(); throws train::RunInterrupted when the fit was stopped, or under `--project`
// once the fit's measured steps are kept.
inline train::FitResult fit_or_interrupt(train::Trainer& trainer) {
  train::FitResult fit = trainer.fit();
  const bool measured = projection_measure(trainer);  // first: a measured fit is also an interrupted one
  if (fit.interrupted || measured) throw train::RunInterrupted{};
  return fit;
}

// Appends one evaluation to result["curve"] as {"step": step, k: metrics[k] for k in keep} (every
// metric when keep is empty) and makes the metrics result["final"]. The Trainer evaluates the last
// step twice when it is also an eval step: a second evaluation of the curve's last step is dropped
// (returns nullptr); otherwise returns the point appended.
inline const nlohmann::json* record_eval(nlohmann::json& result, int64_t step, const nlohmann::json& metrics,
                                         std::initializer_list<const char*> keep = {}) {
  nlohmann::json& curve = result["curve"];
  if (!curve.empty() && curve.back().at("step").get<int64_t>() == step) return nullptr;
  nlohmann::json point = {{"step", step}};
  if (keep.size() == 0)
    for (const auto& [k, v] : metrics.items()) point[k] = v;
  for (const char* k : keep)
    if (metrics.contains(k)) point[k] = metrics.at(k);
  curve.push_back(std::move(point));
  result["final"] = metrics;
  return &curve.back();
}

// Seconds of training between a study run's mid-run checkpoints: a study killed from outside
// (kill -9, a machine's session ending) loses at most this much of each run in flight.
inline constexpr double kStudyCheckpointSeconds = 300;

// A study run's fit that survives the study being stopped. With a work directory (StudyRun::
// work_dir, given to the Trainer as its out_dir) the trainer checkpoints there every
// kStudyCheckpointSeconds and on Ctrl-C, with the run's result so far (its evaluation curve),
// the caller's running state and the item count; the run started again in the same directory
// resumes from that checkpoint and ends with the result an unstopped run gives. Without one
// ("") it trains from step 0.
//
//   StudyFit::configure(config, run.work_dir);             // before the Trainer is built
//   train::Trainer trainer(*task, name, config, run.work_dir);
//   trainer.on_eval = ...;                                  // writes into result
//   StudyFit fit(trainer, result);                          // resumes trainer, result and state
//   fit.on_step = ...;                                      // keeps running sums in fit.state
//   if (!fit.resumed()) ...;                                // e.g. evaluate the untrained model
//   fit.fit("clips_per_second");
class StudyFit {
 public:
  // Sets config["trainer"]["checkpoint_seconds"] (0 without a work directory).
  static void configure(Json& config, const std::string& work_dir);
  // Sets the trainer's on_step (counts items, then calls on_step) and checkpoint_state, then
  // restores the trainer, result and state from the work directory's checkpoint when there is one,
  // then sets result["resumed"] = {"step", "train_seconds"}: the training done before this session.
  StudyFit(train::Trainer& trainer, Json& result);
  StudyFit(const StudyFit&) = delete;  // the trainer's callbacks point at this object
  StudyFit& operator=(const StudyFit&) = delete;
  bool resumed() const { return resumed_; }
  // Trains to the end (train::RunInterrupted when stopped) and sets result["steps"],
  // result["train_seconds"] (across resumes) and, with a rate_key, result[rate_key] =
  // units_per_item * items / train_seconds. A diverged run (train::NonFiniteLoss, rethrown)
  // gets them too, up to its last finished step.
  void fit(const char* rate_key = nullptr, double units_per_item = 1);

  std::function<void(const train::StepRecord&)> on_step;  // after each step's item count
  Json state = Json::object();  // the caller's running sums between evaluations (saved, restored)

 private:
  void record_speed(const char* rate_key, double units_per_item);

  train::Trainer& trainer_;
  Json& result_;
  double items_ = 0;  // examples trained on, across resumes
  bool resumed_ = false;
};

// A study run's task and the config its Trainer takes.
struct StudyTask {
  Json config;
  std::unique_ptr<train::Task> task;
};
// The task `name` built on `device` from its default config with the run's overrides merged
// (errors name `where`); then the config trains without accumulation and checkpoints by time,
// not by step (trainer.accumulate 1, trainer.checkpoint_every 0, StudyFit::configure).
StudyTask make_study_task(const std::string& name, const Json& overrides, const std::string& device,
                          const std::string& work_dir, std::string_view where);

// The mean training loss over each interval of `every` steps, its running sum kept in `state`
// (StudyFit::state, so a resume mid-interval loses nothing): adds the step's loss and, at a
// step that ends an interval, returns the interval's mean and starts the next one.
std::optional<double> interval_mean_loss(Json& state, const train::StepRecord& r, int64_t every);

}  // namespace hm::studies

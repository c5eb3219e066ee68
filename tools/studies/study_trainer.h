// What every study run does with its Trainer: run quietly under the study driver and turn an
// interrupted fit into train::RunInterrupted, so the driver records nothing for that run and
// runs it again on --resume.
#pragma once
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "tools/train/run_pool.h"
#include "tools/train/trainer.h"

namespace hm::studies {

// No log lines (the driver prints one per run), no SIGINT handler (the driver owns Ctrl-C and
// stops the runs in flight), gradient norms only when a run needs them (clipping, a metric).
inline void quiet_study_trainer(train::Trainer& trainer, bool measure_grad_norm = false) {
  trainer.log = nullptr;
  trainer.handle_sigint = false;
  trainer.measure_grad_norm = measure_grad_norm;
}

// trainer.fit(); throws train::RunInterrupted when the fit was stopped.
inline train::FitResult fit_or_interrupt(train::Trainer& trainer) {
  train::FitResult fit = trainer.fit();
  if (fit.interrupted) throw train::RunInterrupted{};
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

}  // namespace hm::studies

// The `chronos` task's model from its config, and saved / loaded forecasters for
// `harmonic forecast`.
//
//   ChronosForecaster f = load_chronos("runs/chronos");  // a run dir, a checkpoint file or a saved dir
//   auto out = models::forecast(*f.model, histories, {.horizon = 24});
//
// A saved directory DIR holds DIR/model.safetensors (the Chronos state_dict, bin centres
// included) and DIR/config.json {"format": "harmonic.chronos", "version": 1, "task": {the
// training config}}; each file is written atomically (core/atomic_file.h).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harmonic/core/device.h"
#include "harmonic/core/random.h"
#include "harmonic/models/chronos.h"

namespace hm::train {

inline constexpr const char* kChronosTask = "chronos";

// The task's default config (its keys, "seed" and the trainer overrides).
nlohmann::json chronos_defaults();
// The model part of a chronos config (checked, with the key named on a bad value).
models::ChronosConfig chronos_model_config(const nlohmann::json& config);
// Trainable parameters of that model (T5 + head), without generating data.
int64_t chronos_parameter_count(const nlohmann::json& config);

struct ChronosForecaster {
  std::shared_ptr<models::Chronos> model;  // in eval mode
  nlohmann::json task_config;
  std::string source;                    // the file the weights came from
  int64_t step = -1;                     // the checkpoint's step (-1 for a saved model)
  std::shared_ptr<Generator> generator;  // the model's init/dropout generator, owned here
};

// From a run directory (checkpoint_<which>.safetensors, which = last or best), a trainer
// checkpoint file of the chronos task, or a saved directory.
ChronosForecaster load_chronos(const std::string& path, Device device = Device::cpu(),
                               const std::string& which = "last");
void save_chronos(const std::string& dir, const models::Chronos& model, const nlohmann::json& task_config);

// The forecaster that ships with Harmonic (models/pretrained/chronos-real-d64, README there): a
// saved directory, looked up in $HARMONIC_PRETRAINED when set, else beside an installed
// `harmonic` (<prefix>/share/harmonic/pretrained), then in the source tree it was built from; an
// hm::Error naming the places searched when none has it.
inline constexpr const char* kShippedForecaster = "chronos-real-d64";
std::string shipped_forecaster_dir();

}  // namespace hm::train

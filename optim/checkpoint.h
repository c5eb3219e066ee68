// Training checkpoints: everything a run needs to continue exactly where it stopped, in ONE
// safetensors file written atomically (core/atomic_file.h):
//   tensors   "model.<name>"  the module's state_dict (parameters and buffers)
//             "optim.<name>"  the optimizer's state_tensors() (moments, momentum buffers)
//   metadata  "format"     "harmonic.checkpoint"    "version"   "1"
//             "step", "epoch"                       (decimal strings)
//             "config"     the run's full JSON configuration
//             "optimizer"  Optimizer::state_json()
//             "rng"        {"default": [seed, offset], "<generator>": [seed, offset], ...}
//             "extra"      JSON the caller keeps (the trainer: elapsed time, batch in epoch)
// It lives in optim/ because it saves a module together with its optimizer: optim already
// depends on nn, and nn must not depend on optim.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"
#include "harmonic/optim/optimizer.h"

namespace hm::optim {

// The scalar part of a checkpoint.
struct CheckpointInfo {
  int64_t step = 0;       // optimizer steps completed
  int64_t epoch = 0;      // the epoch the next step belongs to
  nlohmann::json config;  // the run's configuration (object, or null)
  nlohmann::json extra;   // caller bookkeeping (object, or null)
};

// Generators saved besides hm::default_generator() (always saved as "default"), e.g. a
// dropout generator. Names must be unique and not "default".
using NamedGenerators = std::vector<std::pair<std::string, Generator*>>;

// What a checkpoint is written from and restored into. optimizer may be null (a model-only
// checkpoint, e.g. for evaluation).
struct TrainingState {
  nn::Module* model = nullptr;
  Optimizer* optimizer = nullptr;
  NamedGenerators generators;
};

// Writes state + info to path atomically: a reader sees the previous file or the new one,
// never a torn write, and a failed save leaves no temporary behind.
void save_checkpoint(const std::string& path, const TrainingState& state, const CheckpointInfo& info);

// Restores the model, optimizer (when given and present in the file) and generators, and
// returns the info. Missing, unexpected or mis-shaped tensors raise hm::Error naming every
// one of them (with their "model."/"optim." names) and the file; nothing is modified then.
// With a null optimizer the file's "optim." tensors are ignored.
CheckpointInfo load_checkpoint(const std::string& path, const TrainingState& state);

// Only the info (reads the header, not the tensor data): e.g. the config of a run to resume,
// before building its model.
CheckpointInfo read_checkpoint_info(const std::string& path);

}  // namespace hm::optim

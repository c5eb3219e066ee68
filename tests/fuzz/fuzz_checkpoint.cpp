// Target "checkpoint": a training checkpoint restored into a small model and its Adam state,
// as optim::load_checkpoint does for `harmonic eval`/`grads` and the Trainer's resume.
#include "harmonic/nn/linear.h"
#include "harmonic/optim/adam.h"
#include "harmonic/optim/checkpoint.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

// Linear(3, 2) with Adam after one step (so its moments exist); the seeds in
// tests/fuzz/corpus/checkpoint/ were saved from this state.
optim::TrainingState& fuzz_checkpoint_state() {
  static Generator dropout_gen(7);
  static auto model = std::make_shared<nn::Linear>(3, 2);
  static optim::Adam adam(model->named_parameters());
  static optim::TrainingState state{model.get(), &adam, {{"dropout", &dropout_gen}}};
  return state;
}

int fuzz_checkpoint(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("checkpoint.safetensors", as_text(data, size));
  return reject_errors([&] {
    const optim::CheckpointInfo head = optim::read_checkpoint_info(path);
    (void)head.config.dump();
    optim::load_checkpoint(path, fuzz_checkpoint_state());
  });
}

}  // namespace hm::fuzz

// Target "resume": `harmonic train mlp-spirals --resume`: a run's checkpoint_last.safetensors
// read for its task and config (read_checkpoint_info), then restored by Trainer::resume into
// the task (model, SGD momentum, generators, the trainer's bookkeeping in "extra").
#include "harmonic/optim/checkpoint.h"
#include "tests/fuzz/fuzz_targets.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::fuzz {

// mlp-spirals at its defaults with momentum (so the optimizer has state), 8 points per class
// and mini-batches of 4; the seeds in tests/fuzz/corpus/resume/ are checkpoints of this task.
const train::Json& fuzz_resume_config() {
  static const train::Json config = train::resolve_config(
      train::default_config(train::find_task("mlp-spirals")), "",
      {"momentum=0.9", "points_per_class=8", "val_points_per_class=4", "hidden=4", "batch_size=4", "trainer.epochs=1",
       "trainer.eval_every=0", "trainer.checkpoint_every=2"});
  return config;
}

train::Task& fuzz_resume_task() {
  static const std::unique_ptr<train::Task> task =
      train::build_task(train::find_task("mlp-spirals"), fuzz_resume_config(), Device::cpu());
  return *task;
}

int fuzz_resume(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("checkpoint_last.safetensors", as_text(data, size));
  return reject_errors([&] {
    const optim::CheckpointInfo info = optim::read_checkpoint_info(path);
    (void)info.config.dump();
    train::Trainer trainer(fuzz_resume_task(), "mlp-spirals", fuzz_resume_config(), "");
    trainer.log = nullptr;
    trainer.resume(path);
  });
}

}  // namespace hm::fuzz

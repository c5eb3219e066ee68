// Tests of the train/eval/grads commands as a library (tools/train/train_cli.h), run
// in-process through train_main: run directories (--force), resume overrides, the task read
// from the checkpoint, --checkpoint last|best|PATH, bad batch sizes.
#include <filesystem>
#include <fstream>

#include "harmonic/optim/checkpoint.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"
#include "harmonic/tools/train/train_cli.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

// train_main on the words of a command line (argv[0] added).
int cli(std::vector<std::string> words) {
  words.insert(words.begin(), "harmonic");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return train_main(static_cast<int>(argv.size()), argv.data());
}

// A few-step spirals run into dir.
std::vector<std::string> spirals(const std::string& dir, int steps) {
  return {"train", "mlp-spirals",         "--out", dir,        "--set", fmt::format("trainer.steps={}", steps),
          "--set", "points_per_class=20", "--set", "hidden=8", "--set", "trainer.log_every=100"};
}

}  // namespace

TEST_CASE("trainer cli: a previous run is refused without --force and deleted with it") {
  ScratchDir dir;
  CHECK(run_files(dir.str()).empty());
  REQUIRE(cli(spirals(dir.str(), 3)) == 0);
  CHECK(run_files(dir.str()).size() == 3);  // checkpoint_last, config.json, metrics.jsonl
  CHECK(cli(spirals(dir.str(), 3)) == 1);
  CHECK(throws_with([&] { prepare_run_dir(dir.str(), false); },
                    {"already holds a run", "checkpoint_last.safetensors", "metrics.jsonl", "--force"}));
  // Stale files of an older run: --force deletes them all, and keeps other files.
  for (const char* f : {"checkpoint_step99.safetensors", "checkpoint_best.safetensors", "eval_step99.json"})
    std::ofstream(dir / f) << "old";
  std::ofstream(dir / "notes.txt") << "mine";
  auto args = spirals(dir.str(), 2);
  args.push_back("--force");
  REQUIRE(cli(args) == 0);
  CHECK(dir.entries() ==
        std::vector<std::string>{"checkpoint_last.safetensors", "config.json", "metrics.jsonl", "notes.txt"});
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").step == 2);
}

TEST_CASE("trainer cli: --resume applies safe overrides and refuses the others") {
  ScratchDir dir;
  REQUIRE(cli(spirals(dir.str(), 2)) == 0);
  CHECK(cli({"train", "mlp-spirals", "--out", dir.str(), "--resume", "--set", "trainer.steps=4", "--set", "lr=0.25"}) ==
        0);
  optim::CheckpointInfo info = optim::read_checkpoint_info(dir / "checkpoint_last.safetensors");
  CHECK(info.step == 4);
  CHECK(info.config["lr"] == 0.25);
  CHECK(info.extra["lr_scale"] == 0.5);
  CHECK(cli({"train", "mlp-spirals", "--out", dir.str(), "--resume", "--set", "hidden=16"}) == 1);
  CHECK(cli({"train", "mlp-spirals", "--out", dir.str(), "--resume", "--force"}) == 1);
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").step == 4);  // untouched
  // Resuming another task's run says so (was "key 'dataset' not found").
  int rc = 0;
  const std::string err = hm::test::capture_stderr([&] {
    rc = cli({"train", "fourier-toy", "--out", dir.str(), "--resume"});
  });
  CHECK(rc == 1);
  CHECK_MESSAGE(err.find("is a checkpoint of task 'mlp-spirals', not of 'fourier-toy'") != std::string::npos, err);
}

TEST_CASE("trainer cli: eval and grads read the task from the checkpoint, --checkpoint last|best|PATH") {
  ScratchDir dir;
  auto args = spirals(dir.str(), 4);
  for (const char* s : {"trainer.eval_every=2", "trainer.monitor=val_accuracy", "trainer.monitor_mode=max"})
    args.insert(args.end(), {"--set", s});
  REQUIRE(cli(args) == 0);
  CHECK(cli({"eval", "--out", dir.str()}) == 0);
  std::ifstream in(dir / "eval_step4.json");
  Json e = Json::parse(in);
  CHECK(e["step"] == 4);
  CHECK(e["epoch"] == 4);  // full batch: one step per epoch, counted from 1
  CHECK(e["metrics"].contains("val_loss"));
  CHECK(e["metrics"].contains("train_accuracy"));
  CHECK(cli({"eval", "mlp-spirals", "--out", dir.str(), "--checkpoint", "best"}) == 0);
  CHECK(cli({"eval", "fashion-mlp", "--out", dir.str()}) == 1);  // not this run's task

  // A checkpoint file elsewhere: the outputs go beside it.
  ScratchDir other;
  fs::copy_file(dir / "checkpoint_last.safetensors", other / "snapshot.safetensors");
  CHECK(cli({"eval", "--checkpoint", other / "snapshot.safetensors"}) == 0);
  CHECK(fs::exists(other / "eval_step4.json"));
  CHECK(cli({"grads", "--checkpoint", other / "snapshot.safetensors"}) == 0);
  std::ifstream g_in(other / "grads_step4.json");
  Json g = Json::parse(g_in);
  CHECK(g["epoch"] == 5);  // the batch training would take next: epoch 5, batch 1
  CHECK(g["batch"] == 1);
  CHECK(cli({"eval", "--out", other.str()}) == 1);  // no checkpoint_last there
  CHECK(checkpoint_file("r", "") == "r/checkpoint_last.safetensors");
  CHECK(checkpoint_file("r", "best") == "r/checkpoint_best.safetensors");
  CHECK(checkpoint_file("r", "x/c.safetensors") == "x/c.safetensors");
}

TEST_CASE("trainer cli: a negative batch size is refused, --precision bf16 is refused on the CPU") {
  Json c = hm::test::small_spirals(1);
  apply_override(c, "batch_size=-5");
  CHECK(throws_with([&] { build_task(find_task("mlp-spirals"), c, Device::cpu()); },
                    {"[mlp-spirals] batch_size must be >= 1, or 0 for the full batch; got -5"}));
  ScratchDir dir;
  auto args = spirals(dir.str(), 1);
  args.insert(args.end(), {"--precision", "bf16"});
  CHECK(cli(args) == 1);
}

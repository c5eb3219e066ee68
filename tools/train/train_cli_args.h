// The option values of the train/eval/grads commands (shared by train_cli*.cpp; not part of
// the public API, which is train_cli.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace hm::train {

struct RunArgs {
  std::string task, out, checkpoint, config_file;
  std::vector<std::string> sets;
  std::string device = "cpu";
  int threads = 0;

  void add(CLI::App* cmd, bool inspect);  // inspect: eval/grads (optional task, --checkpoint)
  void setup() const;                     // applies --threads
};

struct TrainArgs : RunArgs {
  int64_t seed = -1;
  std::string precision;
  bool resume = false, force = false, list = false, print_config = false;
  bool json = false;     // --list as JSON (the default: a table)
  bool smoke = false;    // the task's smoke config (TaskSpec::smoke) under the overrides
  int64_t profile = 0;   // steps to profile (Trainer::profile_steps)
  // The shorthands --steps, --epochs, --lr, --batch-size: the text of each one given.
  std::string steps, epochs, lr, batch_size, tensorboard;
  std::vector<std::string> shorthand_overrides() const;  // as --set assignments
};

struct GradsArgs : RunArgs {
  std::string json;
  bool over_time = false;  // d loss_t / d h0 against t (tools/train/grad_over_time.h)
  int64_t window = 20;
  std::string plot;
};

struct CommandArgs {
  TrainArgs train;
  RunArgs eval;
  GradsArgs grads;
};

int run_eval(RunArgs& a);
int run_grads(GradsArgs& a);

}  // namespace hm::train

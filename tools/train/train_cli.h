// The `train`, `eval` and `grads` commands as a library, so a user's own executable can
// register its own task (TaskRegistration) and train it with the same options as `harmonic`:
//
//   #include <harmonic/tools/train/train_cli.h>
//   static hm::train::TaskRegistration reg{{"my-task", "...", defaults, make}};
//   int main(int argc, char** argv) { return hm::train::train_main(argc, argv); }
//
//   ./my_trainer train my-task --out runs/a --set trainer.steps=200
//   ./my_trainer eval --out runs/a --checkpoint best
//
// CLI11 stays out of this header (CLI::App is only forward-declared); include
// <CLI/CLI.hpp> (Debian libcli11-dev) to build your own App around add_train_commands.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace hm::train {

// Adds the subcommands "train", "eval" and "grads" to app. Their option values live in one
// process-wide slot that each call replaces: use one App at a time.
void add_train_commands(CLI::App& app);
// Runs whichever of them app parsed; returns its exit code (130 when training was
// interrupted by Ctrl-C), or -1 when none of them was given. Errors throw hm::Error.
int run_train_commands(CLI::App& app);
// A complete main(): the three commands plus --version; parse errors and hm::Errors are
// printed to stderr and give exit code 1 (CLI11's code for parse errors).
int train_main(int argc, char** argv);

// The checkpoint that `--checkpoint which` names for a run directory: "last" (the default,
// also for ""), "best", or a path taken as is.
std::string checkpoint_file(const std::string& out_dir, const std::string& which);

// Makes out_dir ready for a new run (not a resume): with force, deletes the files of a
// previous run there (run_files()); without, throws listing them.
void prepare_run_dir(const std::string& out_dir, bool force);

}  // namespace hm::train

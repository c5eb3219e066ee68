// `harmonic train|eval|grads`: the commands of tools/train/train_cli.h (a library, so user
// executables get the same commands from hm::train::train_main).
#include "tools/cli/commands.h"
#include "tools/train/train_cli.h"

namespace hm::cli {
namespace {

CLI::App* g_app = nullptr;  // the App the three commands were added to

int run() { return train::run_train_commands(*g_app); }

// "train" adds all three subcommands; "eval" and "grads" are listed so main() finds them.
Registration train_reg{{"train",
                        [](CLI::App& app) {
                          g_app = &app;
                          train::add_train_commands(app);
                        },
                        run}};
Registration eval_reg{{"eval", [](CLI::App&) {}, run}};
Registration grads_reg{{"grads", [](CLI::App&) {}, run}};

}  // namespace
}  // namespace hm::cli

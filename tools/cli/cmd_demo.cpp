// `harmonic demo`: the README's main job until the Fourier-head toy study lands. Trains an
// MLP on the spiral toy with SGD and prints the loss going down.
#include <fmt/format.h>

#include "core/parallel.h"
#include "tools/demos/spiral_sgd.h"
#include "tools/cli/commands.h"

namespace hm::cli {
namespace {

demos::SpiralDemoConfig config;
int threads = 0;

Registration reg{{"demo",
                  [](CLI::App& app) {
                    auto* cmd = app.add_subcommand("demo", "Train a small MLP on the spiral toy (end-to-end demo)");
                    cmd->add_option("--epochs", config.epochs, "full-batch SGD steps")->capture_default_str();
                    cmd->add_option("--hidden", config.hidden, "hidden width")->capture_default_str();
                    cmd->add_option("--lr", config.learning_rate, "learning rate")->capture_default_str();
                    cmd->add_option("--seed", config.seed, "random seed")->capture_default_str();
                    cmd->add_option("--threads", threads, "CPU threads (0: all)");
                  },
                  [] {
                    if (threads > 0) set_num_threads(threads);
                    fmt::print("spiral MLP: {} classes x {} points, hidden {}, SGD lr {}, seed {}\n", config.classes,
                               config.points_per_class, config.hidden, config.learning_rate, config.seed);
                    auto report = [](int64_t epoch, double loss) {
                      if (epoch % 25 == 0 || epoch + 1 == config.epochs)
                        fmt::print("epoch {:4d}  loss {:.4f}\n", epoch, loss);
                    };
                    demos::SpiralDemoResult r = demos::train_spiral_mlp(config, report);
                    fmt::print("loss {:.4f} -> {:.4f}, training accuracy {:.1f}%\n", r.losses.front(), r.losses.back(),
                               100.0 * r.accuracy);
                    return 0;
                  }}};

}  // namespace
}  // namespace hm::cli

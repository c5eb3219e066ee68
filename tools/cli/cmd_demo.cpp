// `harmonic demo`: the README's main job until the Fourier-head toy study lands. Trains an
// MLP on the spiral toy with SGD and prints the loss going down.
// `harmonic demo arcade`: plays an arcade stand-in game (data/arcade, --game; Seaquest by
// default) with a policy and prints the returns (tools/demos/arcade_demo.h).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "harmonic/core/error.h"
#include "harmonic/core/parallel.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/train/threads_option.h"
#include "harmonic/tools/demos/arcade_demo.h"
#include "harmonic/tools/demos/spiral_sgd.h"

namespace hm::cli {
namespace {

demos::SpiralDemoConfig config;
int threads = 0;
demos::ArcadeDemoConfig arcade_config;
CLI::App* arcade_cmd = nullptr;
std::string arcade_dataset;  // "", "quick", "full" or a number of steps
uint64_t arcade_dataset_seed = 0;

// Builds (or reads from the cache) the offline data set and prints its mixture.
int run_arcade_dataset() {
  arcade::OfflineDatasetOptions opt{.game_name = arcade_config.game, .seed = arcade_dataset_seed};
  if (arcade_dataset == "quick") opt.steps = arcade::kQuickSteps;
  else if (arcade_dataset == "full") opt.steps = arcade::kFullSteps;
  else {
    char* end = nullptr;
    opt.steps = std::strtoll(arcade_dataset.c_str(), &end, 10);
    check(end && *end == '\0' && opt.steps > 0, "demo arcade", "--dataset '{}': use quick, full or a step count > 0",
          arcade_dataset);
  }
  const std::string path = arcade::offline_dataset_path(opt);
  const bool cached = std::filesystem::exists(path);
  const auto start = std::chrono::steady_clock::now();
  const arcade::OfflineDataset data = arcade::load_or_generate_offline_dataset(opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("offline data set: {} steps, {} episodes, seed {} ({} {} in {:.1f} s, {:.1f} MB)\n", data.size(),
             data.episodes(), opt.seed, cached ? "read" : "generated and wrote", path, seconds,
             static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  fmt::print("{:<14} {:>8} {:>8} {:>20}\n", "policy", "episodes", "steps", "return mean +- std");
  for (const auto& row : demos::summarize_dataset(data))
    fmt::print("{:<14} {:>8} {:>8} {:>11.1f} +- {:<6.1f}\n", row.policy, row.episodes, row.steps, row.mean_return,
               row.std_return);
  // How often each action (paper order) appears: the distribution a DT's action head learns.
  std::vector<int64_t> counts(arcade::kNumActions, 0);
  for (double a : data.actions.to_vector()) counts[static_cast<size_t>(a)] += 1;
  fmt::print("actions:");
  for (int a = 0; a < arcade::kNumActions; ++a)
    fmt::print(" {} {:.1f}%", arcade::action_name(a), 100.0 * static_cast<double>(counts[a]) / data.size());
  fmt::print("\n");
  return 0;
}

int run_arcade() {
  if (!arcade_dataset.empty()) return run_arcade_dataset();
  const auto& c = arcade_config;
  fmt::print("arcade ({} stand-in): policy {}, {} episodes, seed {}, step cap {}\n",
             arcade::game_info(c.game).atari_name, c.policy, c.episodes, c.seed, c.max_steps);
  demos::ArcadeDemoResult r = demos::run_arcade_demo(c);
  std::vector<double> tally_sums;
  double steps = 0, lives_lost = 0;
  for (size_t e = 0; e < r.episodes.size(); ++e) {
    const auto& s = r.episodes[e];
    std::string tallies;
    tally_sums.resize(s.tallies.size(), 0.0);
    for (size_t i = 0; i < s.tallies.size(); ++i) {
      tallies += fmt::format("  {} {:3d}", s.tallies[i].name, s.tallies[i].value);
      tally_sums[i] += s.tallies[i].value;
    }
    steps += s.steps, lives_lost += s.lives_lost;
    fmt::print("episode {:3d}  return {:7.1f}  steps {:5d}{}  lives lost {}\n", e, s.score, s.steps, tallies,
               s.lives_lost);
  }
  const double n = static_cast<double>(r.episodes.size());
  std::string means = fmt::format("steps {:.1f}, lives lost {:.2f}", steps / n, lives_lost / n);
  for (size_t i = 0; i < tally_sums.size(); ++i)
    means += fmt::format(", {} {:.1f}", r.episodes.front().tallies[i].name, tally_sums[i] / n);
  fmt::print("per episode: {}\n", means);
  fmt::print("mean return {:.1f} +- {:.1f} (std over {} episodes)\n", r.mean, r.std, r.episodes.size());
  if (!c.frames_png.empty()) fmt::print("wrote {}\n", c.frames_png);
  return 0;
}

Registration reg{{"demo",
                  [](CLI::App& app) {
                    auto* cmd = app.add_subcommand("demo", "Train a small MLP on the spiral toy (end-to-end demo)");
                    cmd->add_option("--epochs", config.epochs, "full-batch SGD steps")->capture_default_str();
                    cmd->add_option("--hidden", config.hidden, "hidden width")->capture_default_str();
                    cmd->add_option("--lr", config.learning_rate, "learning rate")->capture_default_str();
                    cmd->add_option("--seed", config.seed, "random seed")->capture_default_str();
                    train::add_threads_option(cmd, threads);
                    cmd->add_option("--device", config.device, "cpu, cuda or cuda:N")->capture_default_str();
                    arcade_cmd = cmd->add_subcommand("arcade", "Play an arcade stand-in game with a scripted policy");
                    auto& a = arcade_config;
                    arcade_cmd->add_option("--game", a.game, "seaquest (the default) or another data/arcade game")
                        ->capture_default_str();
                    arcade_cmd->add_option("--policy", a.policy,
                                           "random or one of the game's scripted policies (seaquest: expert, "
                                           "careless), optionally :<epsilon>")
                        ->capture_default_str();
                    arcade_cmd->add_option("--episodes", a.episodes, "episodes")->capture_default_str();
                    arcade_cmd->add_option("--seed", a.seed, "seed of the episode seeds")->capture_default_str();
                    arcade_cmd->add_option("--max-steps", a.max_steps, "episode step cap")->capture_default_str();
                    arcade_cmd->add_option("--frames-png", a.frames_png, "write the first episode as a strip of frames");
                    arcade_cmd->add_option("--frames", a.frames, "frames in the strip")->capture_default_str();
                    arcade_cmd->add_option("--dataset", arcade_dataset,
                                           "instead: build or read the offline data set (quick, full or a step count)");
                    arcade_cmd->add_option("--dataset-seed", arcade_dataset_seed, "the offline data set's seed")
                        ->capture_default_str();
                  },
                  [] {
                    if (arcade_cmd->parsed()) return run_arcade();
                    if (threads > 0) set_num_threads(threads);
                    fmt::print("spiral MLP: {} classes x {} points, hidden {}, SGD lr {}, seed {}, on {}\n",
                               config.classes, config.points_per_class, config.hidden, config.learning_rate,
                               config.seed, config.device);
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

// `harmonic study fourier-toy`: the Fourier head paper's toy study (section 4.1, Appendices
// C.2/C.3) as parallel independent runs, then results.json, summary.{md,json} and figures.
// The logic lives in tools/studies/fourier_toy/study.h (grid, pool) and tools/studies/fourier_toy/report.h (files).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "core/error.h"
#include "models/fourier_toy.h"
#include "tools/cli/commands.h"
#include "tools/studies/fourier_toy/report.h"
#include "tools/studies/fourier_toy/study.h"

namespace hm::cli {
using namespace hm::studies;
namespace {

struct StudyArgs {
  bool quick = false;
  int jobs = 0;
  int64_t epochs = 0;
  std::vector<uint64_t> seeds;
  std::vector<std::string> datasets;
  std::string out;
  std::string from;  // rebuild the report from an earlier results.json
} args;

CLI::App* fourier_toy_cmd = nullptr;

int run_fourier_toy() {
  const std::string out = !args.out.empty() ? args.out : (args.quick ? "runs/fourier-toy-quick" : "runs/fourier-toy");
  if (!args.from.empty()) {
    std::ifstream in(args.from);
    check(in.good(), "study fourier-toy", "cannot open '{}'", args.from);
    ToyStudyInfo info;
    auto results = toy_results_from_json(Json::parse(in), &info);
    auto files = write_toy_study(out, results, info);
    fmt::print("rebuilt {} files in {} from {} runs of {}\n", files.size(), out, results.size(), args.from);
    return 0;
  }

  ToyStudyPlan plan;
  plan.quick = args.quick;
  plan.epochs = args.epochs;
  plan.seeds = args.seeds;
  for (const auto& d : args.datasets) plan.datasets.push_back(data::parse_toy_distribution(d));
  const auto configs = toy_study_grid(plan);
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const int jobs = args.jobs > 0 ? args.jobs : std::max(hw, 1);
  fmt::print("fourier-toy study ({}): {} runs of {} epochs on {} jobs -> {}\n", args.quick ? "quick" : "full",
             configs.size(), configs.empty() ? 0 : configs[0].epochs, jobs, out);
  std::fflush(stdout);

  // One line per finished run; on a terminal a status line below it is redrawn in place.
  const bool tty = isatty(fileno(stdout)) != 0;
  auto progress = [&](const ToyProgress& p) {
    if (tty) {
      fmt::print("\r\033[K{}\n", format_progress(p));
      if (p.done < p.total)
        fmt::print("  {} of {} runs done, elapsed {}, ETA {}", p.done, p.total, format_duration(p.elapsed),
                   format_duration(p.eta));
    } else {
      fmt::print("{}\n", format_progress(p));
    }
    std::fflush(stdout);
  };
  const auto start = std::chrono::steady_clock::now();
  auto run = [](const models::ToyRunConfig& c) { return models::run_toy_density(c); };
  auto results = run_toy_configs(configs, run, jobs, progress);
  ToyStudyInfo info;
  info.mode = args.quick ? "quick" : "full";
  info.jobs = jobs;
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto files = write_toy_study(out, results, info);

  // The headline: Table 1 and the claims.
  const auto groups = aggregate_toy_results(results);
  fmt::print("\n{} runs in {} (wall). Wrote {} files to {} (summary.md, summary.json, results.json, figures).\n",
             results.size(), format_duration(info.wall_seconds), files.size(), out);
  for (const ToyClaim& c : toy_claims(groups))
    fmt::print("  {:<50} {:<3} ({})\n", c.claim, c.holds ? "yes" : "NO", c.detail);
  return 0;
}

Registration reg{
    {"study",
     [](CLI::App& app) {
       auto* study = app.add_subcommand("study", "Reproduce a paper's study (sweeps of training runs)");
       study->require_subcommand(1);
       auto* cmd = study->add_subcommand("fourier-toy",
                                         "Fourier head toy study (paper section 4.1, Tables 1/5/6/7, Figures 1/2/8/9)");
       fourier_toy_cmd = cmd;
       cmd->add_flag("--quick", args.quick,
                     "seed 1 only and a reduced sweep (linear, gmm, regression, fourier N 2..20 and 12 with gamma "
                     "1e-6, gmm-mle, fourier-mle N 4/8/12/16/20): 60 runs, about 1-2 minutes");
       cmd->add_option("--jobs", args.jobs, "parallel runs (default: hardware threads)");
       cmd->add_option("--epochs", args.epochs,
                       fmt::format("epochs per run (default {}, as in the paper)", kToyFullEpochs));
       cmd->add_option("--seeds", args.seeds, "seeds (default 1 2 3 42; quick: 1)")
           ->allow_extra_args(true)
           ->delimiter(',');
       cmd->add_option("--datasets", args.datasets, "datasets among gaussian gmm2 beta (default all)")
           ->allow_extra_args(true)
           ->delimiter(',');
       cmd->add_option("--out", args.out, "output directory (default runs/fourier-toy or runs/fourier-toy-quick)");
       cmd->add_option("--from", args.from, "rebuild summary and figures from this results.json without training");
     },
     [] {
       check(fourier_toy_cmd && fourier_toy_cmd->parsed(), "study", "unknown study (available: fourier-toy)");
       return run_fourier_toy();
     }}};

}  // namespace
}  // namespace hm::cli

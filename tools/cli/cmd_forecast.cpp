// `harmonic forecast`: probabilistic forecasts of a CSV's series from a chronos model (a run
// directory, checkpoint or saved model), through train::forecast_csv.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "harmonic/core/parallel.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/train/threads_option.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "harmonic/tools/tasks/chronos_model.h"

namespace hm::cli {
namespace {

struct ForecastArgs {
  std::string checkpoint, which = "last", device = "cpu", save_model, quantiles = "pmf";
  train::ForecastCsvOptions csv;
  int threads = 0;
} args;

void print_scores(const train::ForecastCsvResult& r) {
  size_t width = 20;
  for (const std::string& name : r.names) width = std::max(width, name.size());
  fmt::print("{:<{}} {:>4} {:>10} {:>10} {:>10} {:>10}\n", "series", width, "m", "MASE", "naive", "WQL", "naive");
  for (size_t i = 0; i < r.names.size(); ++i) {
    const nn::SeriesScores& s = r.scores[i];
    fmt::print("{:<{}} {:>4} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f}\n", r.names[i], width, r.season_lengths[i], s.mase,
               s.naive_mase, s.wql, s.naive_wql);
  }
  const nn::RelativeScores& a = *r.relative;
  const bool one_m = std::adjacent_find(r.season_lengths.begin(), r.season_lengths.end(), std::not_equal_to<>()) ==
                     r.season_lengths.end();
  fmt::print(
      "relative to seasonal naive ({}), geometric mean over {} series{}: MASE {:.4f}  WQL {:.4f}  (< 1: better)\n",
      one_m ? fmt::format("m = {}", r.season_lengths.front()) : std::string("each series' m"), a.series,
      a.skipped > 0 ? fmt::format(" ({} left out: zero or undefined naive error)", a.skipped) : "", a.relative_mase,
      a.relative_wql);
}

int run_forecast() {
  if (args.threads > 0) set_num_threads(args.threads);
  args.csv.pmf_quantiles = args.quantiles == "pmf";
  const std::string checkpoint = args.checkpoint.empty() ? train::shipped_forecaster_dir() : args.checkpoint;
  train::ChronosForecaster f = train::load_chronos(checkpoint, Device::parse(args.device), args.which);
  if (!args.save_model.empty()) {
    train::save_chronos(args.save_model, *f.model, f.task_config);
    fmt::print(stderr, "saved the model to {}\n", args.save_model);
  }
  if (args.csv.horizon > f.model->config.prediction_length)
    fmt::print(stderr,
               "warning: --horizon {} is longer than the {} steps the model was trained to predict: steps {} to {} "
               "continue from its own draws and are less reliable\n",
               args.csv.horizon, f.model->config.prediction_length, f.model->config.prediction_length + 1,
               args.csv.horizon);
  train::ForecastCsvResult r = train::forecast_csv(*f.model, args.csv);
  for (const std::string& note : r.notes) fmt::print(stderr, "note: {}\n", note);
  fmt::print(stderr, "forecast {} series x {} steps from {} ({} sample paths)\n", r.names.size(), args.csv.horizon,
             f.source, args.csv.samples);
  if (!args.csv.out.empty()) fmt::print(stderr, "wrote {}\n", args.csv.out);
  for (const std::string& p : r.plots) fmt::print(stderr, "wrote {}\n", p);
  if (!r.date_column.empty())
    fmt::print(stderr, "dates from column '{}' (one step: {})\n", r.date_column, r.dates->step_name());
  // --eval answers with the scores; the forecast itself goes to --out when asked for.
  if (args.csv.out.empty() && !args.csv.eval) fmt::print("{}", train::forecast_table(r));
  if (r.relative) print_scores(r);
  return 0;
}

Registration reg{
    {"forecast",
     [](CLI::App& app) {
       auto* cmd = app.add_subcommand(
           "forecast",
           "Probabilistic forecasts of a CSV's series (one per column; empty/NA cells are missing values) from a "
           "chronos model");
       cmd->add_option("--checkpoint", args.checkpoint,
                       fmt::format("a chronos run directory, trainer checkpoint or saved model directory (default: the "
                                   "shipped forecaster, {})",
                                   train::kShippedForecaster));
       cmd->add_option("--which", args.which, "of a run directory: last or best checkpoint")->capture_default_str();
       cmd->add_option("--csv", args.csv.csv,
                       "the input CSV with a header line, or a directory of them (every *.csv; its series are named "
                       "<file stem>/<column>)")
           ->required();
       cmd->add_option("--column", args.csv.columns, "the column(s) to forecast (repeatable; default: every numeric one)");
       cmd->add_option("--delimiter", args.csv.delimiter,
                       "the cell separator (e.g. ';'; a tab as $'\\t'; default: detected from the first lines)");
       cmd->add_option("--decimal", args.csv.decimal, "the decimal mark, '.' or ',' (default: detected)");
       cmd->add_option("--date-column", args.csv.date_column,
                       "the column of dates that labels the rows (default: the first text column of evenly spaced "
                       "dates)");
       cmd->add_option("--horizon", args.csv.horizon, "steps to forecast")->required();
       cmd->add_option("--samples", args.csv.samples, "sample paths per series")->capture_default_str();
       cmd->add_option("--context", args.csv.context, "history points the model reads (0: its training context)")
           ->capture_default_str();
       cmd->add_option("--seed", args.csv.seed, "sampling seed")->capture_default_str();
       cmd->add_option("--quantiles", args.quantiles,
                       "where the median and quantiles come from: pmf (the paths' mean predictive pmf at each step, "
                       "smooth) or paths (the drawn values)")
           ->check(CLI::IsMember({"pmf", "paths"}))
           ->capture_default_str();
       cmd->add_option("--top-k", args.csv.top_k,
                       "draw each step from the k most likely bins only (0: the whole pmf; Chronos' released "
                       "evaluation uses 50)")
           ->capture_default_str();
       cmd->add_option("--out", args.csv.out, "write the forecast CSV here (default: print it)");
       cmd->add_option("--plot", args.csv.plot,
                       "draw history and forecast fan (.png or .svg; several series: one file each, <stem>_<column>)");
       cmd->add_option("--plot-history", args.csv.plot_history,
                       "history points drawn (0: all; default: the model's context or 3 x the horizon, whichever is "
                       "longer)");
       cmd->add_flag("--eval", args.csv.eval,
                     "hold out the last --horizon points of each series, forecast them and print MASE / WQL relative "
                     "to seasonal naive (the forecast CSV only with --out)");
       cmd->add_option("--season-length", args.csv.season_length,
                       "season length m of MASE and the naive baseline (default: from the dates, 12 monthly, 4 "
                       "quarterly, 7 daily, 24 hourly; 1 without dates)");
       cmd->add_option("--device", args.device, "cpu, cuda or cuda:N")->capture_default_str();
       cmd->add_option("--cuda-graph", args.csv.cuda_graph,
                       "on cuda: replay each batch's decoding as a CUDA graph, captured at the second batch of its "
                       "shape (on: or fail; auto: or decode eagerly; off)")
           ->check(CLI::IsMember({"off", "on", "auto"}))
           ->capture_default_str();
       train::add_threads_option(cmd, args.threads);
       cmd->add_option("--save-model", args.save_model, "also write the loaded model as a saved chronos directory");
     },
     run_forecast}};

}  // namespace
}  // namespace hm::cli

// `harmonic plot`: training curves from one or several runs' metrics.jsonl as SVG or PNG.
#include <fmt/format.h>

#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/report/plot.h"

namespace hm::cli {
using namespace hm::report;
namespace {

struct PlotArgs {
  std::vector<std::string> metrics;
  std::string x = "step", out = "plot.svg", title;
  std::vector<std::string> ys;
  bool log_x = false, log_y = false;
  int width = 720, height = 450;
} args;

int run_plot() {
  report::LinePlot p =
      report::metrics_plot(args.metrics, args.x, args.ys.empty() ? std::vector<std::string>{"loss"} : args.ys);
  if (!args.title.empty()) p.title = args.title;  // else the metrics and the run
  p.log_x = args.log_x;
  p.log_y = args.log_y;
  p.width = args.width;
  p.height = args.height;
  report::save(p, args.out);
  size_t points = 0;
  for (const auto& s : p.series) points += s.x.size();
  fmt::print("written {} ({} series, {} points)\n", args.out, p.series.size(), points);
  return 0;
}

Registration reg{
    {"plot",
     [](CLI::App& app) {
       auto* cmd =
           app.add_subcommand("plot", "Plot metrics.jsonl columns of one or more runs against the step (SVG or PNG)");
       cmd->add_option("--metrics", args.metrics,
                       "a run's metrics.jsonl or its directory (repeatable: compare runs, series labelled by run directory)")
           ->required()
           ->allow_extra_args(false);
       cmd->add_option("--y", args.ys, "metric to plot (repeatable; default loss)")->allow_extra_args(false);
       cmd->add_option("--x", args.x, "x axis key")->capture_default_str();
       cmd->add_option("--out", args.out, "output .svg or .png")->capture_default_str();
       cmd->add_option("--title", args.title, "plot title (default: the metrics, the x key and the run)");
       cmd->add_flag("--log-x", args.log_x, "logarithmic x axis (points at x <= 0 are left out)");
       cmd->add_flag("--log-y", args.log_y, "logarithmic y axis");
       cmd->add_option("--width", args.width, "image width (pixels)")->capture_default_str();
       cmd->add_option("--height", args.height, "image height (pixels)")->capture_default_str();
     },
     run_plot}};

}  // namespace
}  // namespace hm::cli

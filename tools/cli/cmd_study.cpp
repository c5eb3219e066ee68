// `harmonic study`: run a registered paper study (tools/studies/driver/study.h) through the durable
// driver (tools/studies/driver/driver.h); `harmonic study --list` names them.
#include <fmt/format.h>

#include "harmonic/core/error.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/studies/driver/projection.h"

namespace hm::cli {
namespace {

studies::StudyArgs args;
bool list = false;
std::vector<std::pair<std::string, CLI::App*>> study_cmds;

int run_study_command() {
  if (list) {
    for (const studies::StudySpec& s : studies::all_studies())
      fmt::print("{}\n  {}\n  {}\n  options (--set): {}\n\n", s.name, s.description, s.modes, s.options.dump());
    return 0;
  }
  for (const auto& [name, cmd] : study_cmds)
    if (cmd->parsed()) {
      if (args.project > 0) {
        studies::project_study(studies::find_study(name), args, stdout);
        return 0;
      }
      studies::StudyOutcome out = studies::run_study(studies::find_study(name), args);
      return out.interrupted && args.status.empty() ? 130 : 0;
    }
  throw_error("study", "name a study (harmonic study --list shows them)");
}

Registration reg{
    {"study",
     [](CLI::App& app) {
       auto* study =
           app.add_subcommand("study", "Reproduce a paper's study (a grid of training runs, then its report)");
       study->add_flag("--list", list, "list the studies, their modes and options");
       for (const studies::StudySpec& s : studies::all_studies()) {
         auto* cmd = study->add_subcommand(s.name, s.description);
         cmd->footer(s.modes);
         cmd->add_flag("--quick", args.quick, "the quick mode (minutes; still shows each result)");
         cmd->add_option("--jobs", args.jobs, "parallel runs (default: hardware threads)");
         cmd->add_option("--seeds", args.seeds, "seeds (default: the mode's)")->delimiter(',');
         cmd->add_option("--set", args.sets, fmt::format("study option key=value (options: {})", s.options.dump()));
         cmd->add_option("--out", args.out,
                         fmt::format("output directory (default runs/{0} or runs/{0}-quick)", s.name));
         cmd->add_option("--resume", args.resume, "finish the interrupted study in this directory");
         cmd->add_option("--from", args.from, "rebuild the report from this study directory without training");
         cmd->add_option("--status", args.status,
                         "show the runs recorded, in flight (their checkpoint and step) and left in this study "
                         "directory (default: --out's, or runs/NAME[-quick] with --quick); runs nothing")
             ->expected(0, 1)
             ->default_str(studies::kStatusDefaultDir);
         cmd->add_option("--only", args.only,
                         "train only the runs whose label matches this regular expression (e.g. ' d64 ', "
                         "'seed=1$'); the rest stay to run, the report waits for the whole grid");
         cmd->add_flag("--force", args.force, "start over in an output directory that holds an earlier study");
         cmd->add_option("--project", args.project,
                         "measure N training steps (after one warm-up step) of the grid's first run, or of --only's "
                         "runs, and print each run's projected training time; records nothing (with --set "
                         "paper_scale=true: the paper's grid on this machine)")
             ->check(CLI::PositiveNumber);
         study_cmds.emplace_back(s.name, cmd);
       }
     },
     run_study_command}};

}  // namespace
}  // namespace hm::cli

// `--status`: the study directory's records, work directories and checkpoints, read only.
#include "harmonic/tools/studies/driver/study_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/core/json_read.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/tools/report/format.h"
#include "harmonic/tools/studies/driver/study_dir.h"

namespace hm::studies {
namespace fs = std::filesystem;

StudyOutcome print_study_status(const StudySpec& spec, const std::string& dir, std::FILE* log) {
  const StudySettings settings = read_study_settings(spec, dir);
  const std::vector<StudyRun> grid = make_grid(spec, settings.context, study_settings_file(dir));
  const std::string results = study_results_file(dir);
  const std::vector<RunRecord> done = in_grid_order(grid, read_results(results), results);
  const StudyInfo info = info_of(settings, spec.name);
  StudyOutcome out{.dir = dir, .done = done.size(), .total = grid.size(), .interrupted = done.size() < grid.size()};
  if (!log) return out;
  fmt::print(log, "{} study ({}) in {}: {} of {} runs recorded, {} of wall time over {} session(s)\n", spec.name,
             settings.context.quick ? "quick" : "full", dir, done.size(), grid.size(),
             report::format_duration(info.wall_seconds), settings.sessions.size());
  // Training seconds per unit of the grid's cost model, from the recorded runs (their seconds
  // across resumes when the result has them), for the estimate of what is left.
  std::map<std::string, double> cost_of;
  for (const StudyRun& run : grid) cost_of[run.label] = run.cost;
  double done_seconds = 0, done_cost = 0;
  std::vector<double> left_costs;  // per run not recorded: its cost less an in-flight run's progress
  std::set<std::string> recorded;
  for (const RunRecord& r : done) {
    recorded.insert(r.label);
    const Json& trained = r.result.is_object() ? r.result.value("train_seconds", Json(r.seconds)) : Json(r.seconds);
    const double seconds = trained.is_number() ? trained.get<double>() : r.seconds;
    done_seconds += seconds;
    done_cost += cost_of[r.label];
    fmt::print(log, "  done         {} |{} | {}\n", r.label, spec.describe ? spec.describe(r) : "",
               report::format_duration(seconds));
  }
  size_t waiting = 0;
  for (const StudyRun& run : grid) {
    if (recorded.count(run.label)) continue;
    double& left_cost = left_costs.emplace_back(run.cost);
    const fs::path work = work_dir_of(dir, run.label), checkpoint = work_checkpoint_of(work);
    if (!fs::exists(checkpoint)) {
      if (fs::exists(work / kWorkConfigFile))
        fmt::print(log, "  in progress  {} | started, no checkpoint yet\n", run.label);
      else
        ++waiting;
      continue;
    }
    std::string where;
    int64_t step = 0;
    try {
      step = optim::read_checkpoint_info(checkpoint.string()).step;
      where = fmt::format("checkpoint at step {}", step);
    } catch (const Error& e) {  // being replaced right now, or damaged: the run will say which
      where = fmt::format("checkpoint unreadable ({})", e.what());
    }
    try {
      std::ifstream config_file(work / "config.json");
      const Json config = parse_json(config_file, "study", fmt::format("'{}'", (work / "config.json").string()));
      if (const int64_t steps = config.at("trainer").value("steps", int64_t{0}); steps > 0) {
        where += fmt::format(" of {}", steps);
        left_cost -= run.cost * static_cast<double>(std::min(step, steps)) / static_cast<double>(steps);
      }
    } catch (const Json::exception&) {  // written by the trainer; a torn one only loses the total
    } catch (const Error&) {            // nested too deep: damaged, and also only loses the total
    }
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(checkpoint, ec);
    if (!ec) where += fmt::format(" ({} ago)", report::format_duration(std::chrono::duration<double>(age).count()));
    std::string last;  // the last metrics line (logged every trainer.log_every steps)
    std::ifstream metrics(work / "metrics.jsonl");
    for (std::string line; std::getline(metrics, line);)
      if (!line.empty()) last = line;
    try {
      const Json record = parse_json(last, "study", fmt::format("'{}'", (work / "metrics.jsonl").string()));
      where += fmt::format(", metrics to step {}", record.at("step").get<int64_t>());
    } catch (const Json::exception&) {  // no line yet, or a torn one of a killed run
    } catch (const Error&) {            // nested too deep: as unreadable as a torn line
    }
    fmt::print(log, "  in progress  {} | {}\n", run.label, where);
  }
  if (waiting) fmt::print(log, "  to run       {} run(s)\n", waiting);
  if (out.interrupted && done_cost > 0) {
    const int jobs = settings.sessions.empty() ? 1 : std::max(1, settings.sessions.back().value("jobs", 1));
    const double per_cost = done_seconds / done_cost;
    double left = 0, longest = 0;
    for (double c : left_costs) left += c * per_cost, longest = std::max(longest, c * per_cost);
    // Fewer runs left than jobs: the longest one bounds the wall time.
    fmt::print(log, "  left         about {} of training, {} on {} job{} (from the recorded runs' seconds)\n",
               report::format_duration(left), report::format_duration(std::max(left / jobs, longest)), jobs,
               jobs == 1 ? "" : "s");
  }
  if (out.interrupted) fmt::print(log, "continue with: harmonic study {} --resume {}\n", spec.name, dir);
  return out;
}

}  // namespace hm::studies

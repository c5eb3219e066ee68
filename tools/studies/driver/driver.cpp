// The study driver: a study's runs on a pool, durably recorded, resumed, reported.
#include "harmonic/tools/studies/driver/driver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/core/file_lock.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/report/format.h"
#include "harmonic/tools/studies/driver/study_dir.h"
#include "harmonic/tools/studies/driver/study_status.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/run_pool.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace fs = std::filesystem;
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `source` names the results file the records came from; fewer records than grid_runs make a
// partial report (summary_files.h says so in its files).
std::vector<std::string> write_report(const StudySpec& spec, const std::string& dir, const std::string& source,
                                      std::vector<RunRecord> records, StudyInfo info, size_t grid_runs,
                                      std::FILE* log) {
  info.grid_runs = grid_runs;
  info.recorded_runs = records.size();
  ReportInput input{dir, fs::path(source).parent_path().string(), std::move(records), info};
  StudyReport report =
      naming_json_errors(fmt::format("the results of study '{}' in {} do not fit its report", spec.name, source),
                         [&] { return spec.report(input); });
  if (log) {
    fmt::print(log, "\nWrote {} files to {} (summary.md, summary.json, figures).\n", report.files.size(), dir);
    for (const std::string& line : report.headline) fmt::print(log, "{}\n", line);
    std::fflush(log);
  }
  return report.files;
}

// --from: the report of a finished (or partly finished) study, without training.
StudyOutcome report_only(const StudySpec& spec, const StudyArgs& args, std::FILE* log) {
  const fs::path from = args.from;
  const fs::path dir = fs::is_directory(from) ? from : from.parent_path();
  const fs::path results = fs::is_directory(from) ? from / kResultsFile : from;
  const StudySettings settings = read_study_settings(spec, dir.string());
  const std::vector<StudyRun> grid = make_grid(spec, settings.context, study_settings_file(dir.string()));
  std::vector<RunRecord> records = in_grid_order(grid, read_results(results.string()), results.string());
  StudyOutcome out;
  out.dir = args.out.empty() ? dir.string() : args.out;
  out.done = records.size();
  out.total = grid.size();
  if (log && out.done < out.total)
    fmt::print(log, "note: {} of {} runs are recorded; the report covers those\n", out.done, out.total);
  out.files =
      write_report(spec, out.dir, results.string(), std::move(records), info_of(settings, spec.name), grid.size(), log);
  return out;
}

// The run's work directory: what an earlier session's run of the same label left there when
// it was made for the same config (the run resumes from it), else a new empty directory.
std::string prepare_work_dir(const std::string& dir, const StudyRun& run) {
  const fs::path work = work_dir_of(dir, run.label), marker = work / kWorkConfigFile;
  bool same = false;
  if (std::ifstream in(marker); in.good()) {
    try {
      same = parse_json(in, "study", fmt::format("'{}'", marker.string())) == run.config;
    } catch (const Json::exception&) {  // torn by a kill: not the same
    }
  }
  if (!same) {
    fs::remove_all(work);
    create_output_directory(work.string(), "study");
    write_file_atomic(marker.string(), run.config.dump(2) + "\n");
  }
  return work.string();
}

}  // namespace

StudyOutcome run_study(const StudySpec& spec, const StudyArgs& args, std::FILE* log) {
  if (!args.status.empty())
    return print_study_status(spec,
                              args.status != kStatusDefaultDir ? args.status
                              : args.out.empty()               ? default_study_dir(spec, args.quick)
                                                               : args.out,
                              log);
  if (!args.from.empty()) return report_only(spec, args, log);
  check(args.jobs >= 0, "study", "--jobs must be >= 1 (0: all hardware threads), got {}", args.jobs);

  // One study process per directory: a second one would run the same runs into the same work
  // directories and record them twice. Taken before anything in the directory is read or changed.
  std::optional<FileLock> lock;
  auto lock_dir = [&](const std::string& dir) {
    lock.emplace((fs::path(dir) / kLockFile).string(), "study", FileLock::kFailIfHeld);
  };

  // The settings: a new study's from the arguments, a resumed one's from its study.json.
  StudySettings settings;
  std::string dir;
  if (!args.resume.empty()) {
    check(!args.quick && args.seeds.empty() && args.sets.empty() && args.out.empty(), "study",
          "--resume takes its settings from {}/{}: do not pass --quick, --seeds, --set or --out with it", args.resume,
          kSettingsFile);
    dir = args.resume;
    check(fs::is_directory(dir), "study", "cannot read '{}/{}' (is this the directory of a study?)", dir,
          kSettingsFile);
    lock_dir(dir);
    settings = read_study_settings(spec, dir);
  } else {
    dir = args.out.empty() ? default_study_dir(spec, args.quick) : args.out;
    settings.study = spec.name;
    settings.context.quick = args.quick;
    settings.context.seeds = args.seeds;
    settings.context.options = train::resolve_config(spec.options, "", args.sets);
    create_output_directory(dir, "study");
    lock_dir(dir);
    const std::string results = study_results_file(dir), saved = study_settings_file(dir);
    const bool has_results = fs::exists(results) && !read_results(results).empty();
    // The same command again continues (or, when complete, only re-reports) the same study, its
    // earlier sessions' wall time included; other settings must not mix with its results, and
    // start over where none are recorded yet.
    std::optional<StudySettings> earlier;
    if (!args.force && (fs::exists(saved) || has_results)) {
      try {
        earlier = StudySettings::read(saved);
      } catch (const Error&) {
        if (has_results) throw;  // results without readable settings: refuse, naming the file
      }
    }
    bool same = false;
    if (earlier) {
      earlier->context.options = with_new_option_defaults(spec.options, earlier->context.options);
      same = earlier->study == spec.name && earlier->context.quick == settings.context.quick &&
             earlier->context.seeds == settings.context.seeds && earlier->context.options == settings.context.options;
    }
    check(same || !has_results || args.force, "study",
          "'{}' holds results of an earlier study with other settings ({}): finish it with --resume {}, or pass "
          "--force to start over",
          dir, earlier ? earlier->to_json().dump() : "?", dir);
    if (same)
      settings.sessions = earlier->sessions;
    else if (fs::exists(results))
      fs::remove(results);
    if (args.force) fs::remove_all(fs::path(dir) / kInProgressDir);  // starting over: no run resumes
  }
  const std::vector<StudyRun> grid =
      make_grid(spec, settings.context, args.resume.empty() ? "--set" : study_settings_file(dir));
  create_output_directory(dir, "study");
  remove_orphaned_temporaries(dir);  // study.json / summary temporaries of a killed earlier session
  const std::string results_path = study_results_file(dir), settings_path = study_settings_file(dir);

  // Keep the parseable records only, so a torn last line cannot swallow the next append.
  std::vector<RunRecord> done = in_grid_order(grid, read_results(results_path), results_path);
  {
    std::string kept;
    for (const RunRecord& r : done) kept += record_json(r).dump() + "\n";
    write_file_atomic(results_path, kept);
  }
  std::set<std::string> done_labels;
  for (const RunRecord& r : done) done_labels.insert(r.label);
  std::vector<size_t> todo;
  for (size_t i = 0; i < grid.size(); ++i)
    if (!done_labels.count(grid[i].label)) todo.push_back(i);
  const size_t missing = todo.size();
  if (!args.only.empty()) todo = only_matching(grid, todo, args.only);

  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const int jobs = args.jobs > 0 ? args.jobs : std::max(hw, 1);
  settings.sessions.push_back({{"jobs", jobs}, {"wall_seconds", 0.0}});
  settings.write(settings_path);
  if (log) {
    fmt::print(log, "{} study ({}): {} run{} on {} job{} -> {}{}\n", spec.name,
               settings.context.quick ? "quick" : "full", grid.size(), grid.size() == 1 ? "" : "s", jobs,
               jobs == 1 ? "" : "s", dir,
               done.empty() ? "" : fmt::format(" (resuming: {} done, {} to run)", done.size(), missing));
    if (!args.only.empty())
      fmt::print(log, "--only '{}': {} of the {} runs left match and train now\n", args.only, todo.size(), missing);
    std::fflush(log);
  }

  // One line per finished run; on a terminal a status line below it is redrawn in place.
  const bool tty = log && isatty(fileno(log)) != 0;
  const auto start = std::chrono::steady_clock::now();
  const size_t width = fmt::format("{}", grid.size()).size();
  size_t recorded = done.size();
  std::vector<RunRecord> fresh(todo.size());
  std::mutex fresh_mutex;
  train::SigintScope sigint;  // Ctrl-C: runs in flight stop at their next step, none start
  train::clear_stop();
  const size_t finished =
      train::run_pool(todo.size(),
                      [&](size_t k) {
                        StudyRun run = grid[todo[k]];
                        run.dir = dir;
                        run.work_dir = prepare_work_dir(dir, run);
                        // The run's wall time: this session's part plus the training an earlier
                        // session did before the checkpoint the run resumes from (time spent after
                        // that checkpoint was lost with that session and is not counted).
                        const double before = work_dir_training_seconds(run.work_dir);
                        const auto t0 = std::chrono::steady_clock::now();
                        Json result = spec.run(run);
                        HM_CHECK(result.is_object(), "study", "run '{}' returned {} instead of a JSON object",
                                 run.label, result.dump());
                        std::lock_guard<std::mutex> lock(fresh_mutex);
                        const double seconds = seconds_since(t0) + before;
                        fresh[k] = RunRecord{run.label, run.config, std::move(result), seconds};
                      },
                      jobs,
                      {.cost = [&](size_t k) { return grid[todo[k]].cost; },
                       .label = [&](size_t k) { return grid[todo[k]].label; },
                       .on_done =
                           [&](size_t k, const train::PoolProgress& p) {
                             const RunRecord& r = fresh[k];
                             append_line_durable(results_path, record_json(r).dump());
                             // The session's wall time so far: a killed session keeps it too.
                             settings.sessions.back()["wall_seconds"] = seconds_since(start);
                             settings.write(settings_path);
                             std::error_code ignored;  // recorded: its checkpoints are no longer needed
                             fs::remove_all(work_dir_of(dir, r.label), ignored);
                             ++recorded;
                             if (!log) return;
                             const std::string line = fmt::format(
                                 "[{:>{}}/{}] {} | {} | {} | elapsed {}, ETA {}", recorded, width, grid.size(), r.label,
                                 spec.describe ? spec.describe(r) : "", report::format_duration(r.seconds),
                                 report::format_duration(p.elapsed), report::format_duration(p.eta));
                             if (tty) {
                               fmt::print(log, "\r\033[K{}\n", line);
                               if (recorded < grid.size())
                                 fmt::print(log, "  {} of {} runs done, elapsed {}, ETA {}", recorded, grid.size(),
                                            report::format_duration(p.elapsed), report::format_duration(p.eta));
                             } else {
                               fmt::print(log, "{}\n", line);
                             }
                             std::fflush(log);
                           },
                       .stop_starting = [] { return train::stop_requested(); }});

  settings.sessions.back()["wall_seconds"] = seconds_since(start);
  settings.write(settings_path);
  StudyOutcome out;
  out.dir = dir;
  out.total = grid.size();
  out.done = done.size() + finished;
  out.interrupted = finished < todo.size();
  train::clear_stop();
  if (!out.interrupted && out.done < out.total) {  // --only: its runs are done, the grid is not
    if (log)
      fmt::print(log,
                 "{} of {} runs are recorded in {} (--only '{}' is done); the rest: harmonic study {} --resume {}\n",
                 out.done, out.total, results_path, args.only, spec.name, dir);
    return out;
  }
  if (out.interrupted) {
    if (log) {
      if (tty) fmt::print(log, "\n");
      fmt::print(log, "interrupted: {} of {} runs are recorded in {}; finish with: harmonic study {} --resume {}\n",
                 out.done, out.total, results_path, spec.name, dir);
    }
    return out;
  }
  std::vector<RunRecord> all = in_grid_order(grid, read_results(results_path), results_path);
  check(all.size() == grid.size(), "study", "{} holds {} of the grid's {} runs after the pool finished", results_path,
        all.size(), grid.size());
  std::error_code ignored;  // every run is recorded (a kill between a record and its removal leaves one)
  fs::remove_all(fs::path(dir) / kInProgressDir, ignored);
  out.files = write_report(spec, dir, results_path, std::move(all), info_of(settings, spec.name), grid.size(), log);
  return out;
}

}  // namespace hm::studies

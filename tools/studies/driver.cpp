// The study driver: settings, durable results, resume, progress lines, report.
#include "tools/studies/driver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/file_lock.h"
#include "core/file_read.h"
#include "optim/checkpoint.h"
#include "tools/report/format.h"
#include "tools/train/config.h"
#include "tools/train/run_pool.h"
#include "tools/train/trainer.h"

namespace hm::studies {
namespace fs = std::filesystem;
namespace {

constexpr const char* kResults = "results.jsonl";
constexpr const char* kSettings = "study.json";
constexpr const char* kInProgress = "in_progress";     // the runs' work directories (StudyRun::work_dir)
constexpr const char* kWorkConfig = "study_run.json";  // the config a work directory was made for
constexpr const char* kLock = "study.lock";            // held by the study process running in DIR

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// study.json: what the grid was made from, and the sessions that ran it.
struct Settings {
  std::string study;
  StudyContext context;
  Json sessions = Json::array();  // [{"jobs", "wall_seconds"}]

  Json to_json() const {
    return {{"study", study},
            {"quick", context.quick},
            {"seeds", context.seeds},
            {"options", context.options},
            {"sessions", sessions}};
  }
  static Settings read(const std::string& path) {
    std::ifstream in(path);
    check(in.good(), "study", "cannot read '{}' (is this the directory of a study?)", path);
    try {
      Json j = Json::parse(in);
      Settings s;
      s.study = j.at("study").get<std::string>();
      s.context.quick = j.at("quick").get<bool>();
      s.context.seeds = j.at("seeds").get<std::vector<uint64_t>>();
      s.context.options = j.at("options");
      s.sessions = j.at("sessions");
      // info_of() reads every session's jobs and wall_seconds: checked here, where errors name the file.
      check(s.sessions.is_array(), "study", "'{}': \"sessions\" must be an array, got {}", path, s.sessions.dump());
      for (const Json& session : s.sessions) {
        check(session.is_object(), "study", "'{}': a session must be an object, got {}", path, session.dump());
        (void)session.value("jobs", 1);
        (void)session.value("wall_seconds", 0.0);
      }
      return s;
    } catch (const Json::exception& e) {
      throw_error("study", fmt::format("'{}' is not a study's settings file: {}", path, e.what()));
    }
  }
};

// Options a study gained after `stored` was written take their defaults, so an older study
// directory still resumes (and compares equal to the same command with no --set).
Json with_new_option_defaults(const Json& defaults, Json stored) {
  if (!stored.is_object()) return stored;
  for (const auto& [key, value] : defaults.items())
    if (!stored.contains(key)) stored[key] = value;
  return stored;
}

std::string default_dir(const StudySpec& spec, bool quick) {
  return fmt::format("runs/{}{}", spec.name, quick ? "-quick" : "");
}

// A study's grid and report read JSON that this session did not write: the options of a
// study.json, the records of a results.jsonl (from an older version, or edited by hand). A
// JSON key or type error there names the study and the file instead of escaping as a bare
// "key 'released_settings' not found" (found by fuzzing `study --from`, tests/fuzz/).
template <class F>
auto naming_json_errors(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Json::exception& e) {
    throw_error("study", fmt::format("{}: {}", what, e.what()));
  }
}

// The grid, with its labels checked unique; `source` names where the options came from.
std::vector<StudyRun> make_grid(const StudySpec& spec, const StudyContext& context, const std::string& source) {
  std::vector<StudyRun> grid =
      naming_json_errors(fmt::format("the options of study '{}' ({}) do not fit it", spec.name, source),
                         [&] { return spec.grid(context); });
  std::set<std::string> labels;
  for (const StudyRun& r : grid)
    check(labels.insert(r.label).second, "study", "study '{}' has the run label '{}' twice", spec.name, r.label);
  return grid;
}

// The records of `grid` found in `records`, in grid order; a recorded label with a different
// config means the results belong to other settings.
std::vector<RunRecord> in_grid_order(const std::vector<StudyRun>& grid, const std::vector<RunRecord>& records,
                                     const std::string& where) {
  std::map<std::string, const RunRecord*> by_label;
  for (const RunRecord& r : records) by_label.emplace(r.label, &r);
  std::vector<RunRecord> out;
  for (const StudyRun& run : grid) {
    auto it = by_label.find(run.label);
    if (it == by_label.end()) continue;
    HM_CHECK(it->second->config == run.config, "study",
             "{}: run '{}' was recorded with config {} but the grid asks for {}", where, run.label,
             it->second->config.dump(), run.config.dump());
    out.push_back(*it->second);
  }
  return out;
}

StudyInfo info_of(const Settings& settings, const std::string& name) {
  StudyInfo info;
  info.name = name;
  info.quick = settings.context.quick;
  for (const Json& s : settings.sessions) {
    info.jobs = std::max(info.jobs, s.value("jobs", 1));
    info.wall_seconds += s.value("wall_seconds", 0.0);
  }
  return info;
}

// `source` names the results file the records came from.
std::vector<std::string> write_report(const StudySpec& spec, const std::string& dir, const std::string& source,
                                      std::vector<RunRecord> records, const StudyInfo& info, std::FILE* log) {
  ReportInput input{dir, std::move(records), info};
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
  const fs::path results = fs::is_directory(from) ? from / kResults : from;
  Settings settings = Settings::read((dir / kSettings).string());
  check(settings.study == spec.name, "study", "'{}' holds study '{}', not '{}'", dir.string(), settings.study,
        spec.name);
  const std::vector<StudyRun> grid = make_grid(spec, settings.context, (dir / kSettings).string());
  std::vector<RunRecord> records = in_grid_order(grid, read_results(results.string()), results.string());
  StudyOutcome out;
  out.dir = args.out.empty() ? dir.string() : args.out;
  out.done = records.size();
  out.total = grid.size();
  if (log && out.done < out.total)
    fmt::print(log, "note: {} of {} runs are recorded; the report covers those\n", out.done, out.total);
  out.files = write_report(spec, out.dir, results.string(), std::move(records), info_of(settings, spec.name), log);
  return out;
}

// DIR/in_progress/<label as a file name>-<FNV-1a of the label>: distinct labels that read the
// same as file names ("k=1", "k 1") still get distinct directories.
fs::path work_dir_of(const std::string& dir, const std::string& label) {
  std::string name;
  uint32_t hash = 2166136261u;
  for (char c : label) {
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  return fs::path(dir) / kInProgress / fmt::format("{}-{:08x}", name, hash);
}

// The run's work directory: what an earlier session's run of the same label left there when
// it was made for the same config (the run resumes from it), else a new empty directory.
std::string prepare_work_dir(const std::string& dir, const StudyRun& run) {
  const fs::path work = work_dir_of(dir, run.label), marker = work / kWorkConfig;
  bool same = false;
  if (std::ifstream in(marker); in.good()) {
    try {
      same = Json::parse(in) == run.config;
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

// DIR/study.json of `spec`'s study (another study's directory is refused), the options the
// study gained since it was written taking their defaults: what --resume and --status run on.
Settings read_study_settings(const StudySpec& spec, const std::string& dir) {
  Settings settings = Settings::read((fs::path(dir) / kSettings).string());
  check(settings.study == spec.name, "study", "'{}' holds study '{}', not '{}'", dir, settings.study, spec.name);
  settings.context.options = with_new_option_defaults(spec.options, settings.context.options);
  return settings;
}

// --status: what is recorded, what is in flight (its work directory's checkpoint and last
// metrics line) and what is left, without running anything.
StudyOutcome print_status(const StudySpec& spec, const std::string& dir, std::FILE* log) {
  const Settings settings = read_study_settings(spec, dir);
  const std::vector<StudyRun> grid = make_grid(spec, settings.context, (fs::path(dir) / kSettings).string());
  const std::string results = (fs::path(dir) / kResults).string();
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
  double done_seconds = 0, done_cost = 0, left_cost = 0;
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
    left_cost += run.cost;  // an in-flight run's progress is subtracted below
    const fs::path work = work_dir_of(dir, run.label), checkpoint = work / "checkpoint_last.safetensors";
    if (!fs::exists(checkpoint)) {
      if (fs::exists(work / kWorkConfig))
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
      if (const int64_t steps = Json::parse(config_file).at("trainer").value("steps", int64_t{0}); steps > 0) {
        where += fmt::format(" of {}", steps);
        left_cost -= run.cost * static_cast<double>(std::min(step, steps)) / static_cast<double>(steps);
      }
    } catch (const Json::exception&) {  // written by the trainer; a torn one only loses the total
    }
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(checkpoint, ec);
    if (!ec) where += fmt::format(" ({} ago)", report::format_duration(std::chrono::duration<double>(age).count()));
    std::string last;  // the last metrics line (logged every trainer.log_every steps)
    std::ifstream metrics(work / "metrics.jsonl");
    for (std::string line; std::getline(metrics, line);)
      if (!line.empty()) last = line;
    try {
      where += fmt::format(", metrics to step {}", Json::parse(last).at("step").get<int64_t>());
    } catch (const Json::exception&) {  // no line yet, or a torn one of a killed run
    }
    fmt::print(log, "  in progress  {} | {}\n", run.label, where);
  }
  if (waiting) fmt::print(log, "  to run       {} run(s)\n", waiting);
  if (out.interrupted && done_cost > 0) {
    const int jobs = settings.sessions.empty() ? 1 : std::max(1, settings.sessions.back().value("jobs", 1));
    const double left = left_cost * done_seconds / done_cost;
    fmt::print(log, "  left         about {} of training, {} on {} jobs (from the recorded runs' seconds)\n",
               report::format_duration(left), report::format_duration(left / jobs), jobs);
  }
  if (out.interrupted) fmt::print(log, "continue with: harmonic study {} --resume {}\n", spec.name, dir);
  return out;
}

}  // namespace

Json record_json(const RunRecord& r) {
  return {{"label", r.label}, {"config", r.config}, {"result", r.result}, {"seconds", r.seconds}};
}

std::vector<RunRecord> read_results(const std::string& path) {
  std::vector<RunRecord> records;
  std::ifstream in(path);
  if (!in.good()) return records;
  std::set<std::string> seen;
  std::string line;
  // A run's record (curves included) is kilobytes; 256 MiB means the file is not a results log.
  for (int64_t lineno = 1; read_line_limited(in, line, size_t{256} << 20, "study", path, lineno); ++lineno) {
    if (line.empty()) continue;
    try {
      Json j = Json::parse(line);
      RunRecord r{j.at("label").get<std::string>(), j.at("config"), j.at("result"), j.at("seconds").get<double>()};
      if (seen.insert(r.label).second) records.push_back(std::move(r));
    } catch (const Json::exception&) {
      continue;  // a torn line of a killed process: that run is simply not done
    }
  }
  return records;
}

StudyOutcome run_study(const StudySpec& spec, const StudyArgs& args, std::FILE* log) {
  if (!args.status.empty())
    return print_status(spec,
                        args.status != kStatusDefaultDir ? args.status
                        : args.out.empty()               ? default_dir(spec, args.quick)
                                                         : args.out,
                        log);
  if (!args.from.empty()) return report_only(spec, args, log);
  check(args.jobs >= 0, "study", "--jobs must be >= 1 (0: all hardware threads), got {}", args.jobs);

  // One study process per directory: a second one would run the same runs into the same work
  // directories and record them twice. Taken before anything in the directory is read or changed.
  std::optional<FileLock> lock;
  auto lock_dir = [&](const std::string& dir) {
    lock.emplace((fs::path(dir) / kLock).string(), "study", FileLock::kFailIfHeld);
  };

  // The settings: a new study's from the arguments, a resumed one's from its study.json.
  Settings settings;
  std::string dir;
  if (!args.resume.empty()) {
    check(!args.quick && args.seeds.empty() && args.sets.empty() && args.out.empty(), "study",
          "--resume takes its settings from {}/{}: do not pass --quick, --seeds, --set or --out with it", args.resume,
          kSettings);
    dir = args.resume;
    check(fs::is_directory(dir), "study", "cannot read '{}/{}' (is this the directory of a study?)", dir, kSettings);
    lock_dir(dir);
    settings = read_study_settings(spec, dir);
  } else {
    dir = args.out.empty() ? default_dir(spec, args.quick) : args.out;
    settings.study = spec.name;
    settings.context.quick = args.quick;
    settings.context.seeds = args.seeds;
    settings.context.options = train::resolve_config(spec.options, "", args.sets);
    create_output_directory(dir, "study");
    lock_dir(dir);
    const fs::path results = fs::path(dir) / kResults, saved = fs::path(dir) / kSettings;
    const bool has_results = fs::exists(results) && !read_results(results.string()).empty();
    // The same command again continues (or, when complete, only re-reports) the same study, its
    // earlier sessions' wall time included; other settings must not mix with its results, and
    // start over where none are recorded yet.
    std::optional<Settings> earlier;
    if (!args.force && (fs::exists(saved) || has_results)) {
      try {
        earlier = Settings::read(saved.string());
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
    if (args.force) fs::remove_all(fs::path(dir) / kInProgress);  // starting over: no run resumes
  }
  const std::vector<StudyRun> grid =
      make_grid(spec, settings.context, args.resume.empty() ? "--set" : (fs::path(dir) / kSettings).string());
  create_output_directory(dir, "study");
  remove_orphaned_temporaries(dir);  // study.json / summary temporaries of a killed earlier session
  const std::string results_path = (fs::path(dir) / kResults).string();

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

  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const int jobs = args.jobs > 0 ? args.jobs : std::max(hw, 1);
  settings.sessions.push_back({{"jobs", jobs}, {"wall_seconds", 0.0}});
  write_file_atomic((fs::path(dir) / kSettings).string(), settings.to_json().dump(2) + "\n");
  if (log) {
    fmt::print(log, "{} study ({}): {} runs on {} jobs -> {}{}\n", spec.name, settings.context.quick ? "quick" : "full",
               grid.size(), jobs, dir,
               done.empty() ? "" : fmt::format(" (resuming: {} done, {} to run)", done.size(), todo.size()));
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
                        const auto t0 = std::chrono::steady_clock::now();
                        Json result = spec.run(run);
                        HM_CHECK(result.is_object(), "study", "run '{}' returned {} instead of a JSON object",
                                 run.label, result.dump());
                        std::lock_guard<std::mutex> lock(fresh_mutex);
                        fresh[k] = RunRecord{run.label, run.config, std::move(result), seconds_since(t0)};
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
                             write_file_atomic((fs::path(dir) / kSettings).string(), settings.to_json().dump(2) + "\n");
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
  write_file_atomic((fs::path(dir) / kSettings).string(), settings.to_json().dump(2) + "\n");
  StudyOutcome out;
  out.dir = dir;
  out.total = grid.size();
  out.done = done.size() + finished;
  out.interrupted = out.done < out.total;
  train::clear_stop();
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
  fs::remove_all(fs::path(dir) / kInProgress, ignored);
  out.files = write_report(spec, dir, results_path, std::move(all), info_of(settings, spec.name), log);
  return out;
}

}  // namespace hm::studies

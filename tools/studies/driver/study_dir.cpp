// A study's directory: study.json, results.jsonl, the runs' work directories.
#include "harmonic/tools/studies/driver/study_dir.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::studies {
namespace fs = std::filesystem;

Json StudySettings::to_json() const {
  return {{"study", study},
          {"quick", context.quick},
          {"seeds", context.seeds},
          {"options", context.options},
          {"sessions", sessions}};
}

StudySettings StudySettings::read(const std::string& path) {
  std::ifstream in(path);
  check(in.good(), "study", "cannot read '{}' (is this the directory of a study?)", path);
  try {
    Json j = parse_json(in, "study", fmt::format("'{}'", path));
    StudySettings s;
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

void StudySettings::write(const std::string& path) const { write_file_atomic(path, to_json().dump(2) + "\n"); }

std::string study_settings_file(const std::string& dir) { return (fs::path(dir) / kSettingsFile).string(); }
std::string study_results_file(const std::string& dir) { return (fs::path(dir) / kResultsFile).string(); }

Json with_new_option_defaults(const Json& defaults, Json stored) {
  if (!stored.is_object()) return stored;
  for (const auto& [key, value] : defaults.items())
    if (!stored.contains(key)) stored[key] = value;
  return stored;
}

StudySettings read_study_settings(const StudySpec& spec, const std::string& dir) {
  StudySettings settings = StudySettings::read(study_settings_file(dir));
  check(settings.study == spec.name, "study", "'{}' holds study '{}', not '{}'", dir, settings.study, spec.name);
  settings.context.options = with_new_option_defaults(spec.options, settings.context.options);
  return settings;
}

std::string default_study_dir(const StudySpec& spec, bool quick) {
  return fmt::format("runs/{}{}", spec.name, quick ? "-quick" : "");
}

std::vector<StudyRun> make_grid(const StudySpec& spec, const StudyContext& context, const std::string& source) {
  std::vector<StudyRun> grid =
      naming_json_errors(fmt::format("the options of study '{}' ({}) do not fit it", spec.name, source),
                         [&] { return spec.grid(context); });
  std::set<std::string> labels;
  for (const StudyRun& r : grid)
    check(labels.insert(r.label).second, "study", "study '{}' has the run label '{}' twice", spec.name, r.label);
  return grid;
}

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

StudyInfo info_of(const StudySettings& settings, const std::string& name) {
  StudyInfo info;
  info.name = name;
  info.quick = settings.context.quick;
  for (const Json& s : settings.sessions) {
    info.jobs = std::max(info.jobs, s.value("jobs", 1));
    info.wall_seconds += s.value("wall_seconds", 0.0);
  }
  return info;
}

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
      Json j = parse_json(line, "study", fmt::format("'{}' line {}", path, lineno));
      RunRecord r{j.at("label").get<std::string>(), j.at("config"), j.at("result"), j.at("seconds").get<double>()};
      if (seen.insert(r.label).second) records.push_back(std::move(r));
    } catch (const Json::exception&) {
      continue;  // a torn line of a killed process: that run is simply not done
    }
  }
  return records;
}

fs::path work_dir_of(const std::string& dir, const std::string& label) {
  std::string name;
  uint32_t hash = 2166136261u;
  for (char c : label) {
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  return fs::path(dir) / kInProgressDir / fmt::format("{}-{:08x}", name, hash);
}

fs::path work_checkpoint_of(const fs::path& work_dir) { return train::Trainer::last_checkpoint_in(work_dir.string()); }

double work_dir_training_seconds(const fs::path& work_dir) {
  const fs::path checkpoint = work_checkpoint_of(work_dir);
  if (!fs::exists(checkpoint)) return 0;
  try {
    return train::Trainer::checkpoint_training_seconds(checkpoint.string());
  } catch (const std::exception&) {
    return 0;
  }
}

// --only: the runs of todo whose label the pattern matches; a pattern that is not a regular
// expression or matches no label of the grid is refused, naming some labels.
std::vector<size_t> only_matching(const std::vector<StudyRun>& grid, const std::vector<size_t>& todo,
                                  const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw_error("study", fmt::format("--only '{}' is not a regular expression ({})", pattern, e.what()));
  }
  bool any = false;
  for (const StudyRun& r : grid) any = any || std::regex_search(r.label, re);
  if (!any) {
    std::string labels;
    for (size_t i = 0; i < grid.size() && i < 4; ++i) labels += fmt::format("{}'{}'", i ? ", " : "", grid[i].label);
    throw_error("study", fmt::format("--only '{}' matches none of the grid's {} run labels ({}{})", pattern,
                                     grid.size(), labels, grid.size() > 4 ? ", ..." : ""));
  }
  std::vector<size_t> kept;
  for (size_t i : todo)
    if (std::regex_search(grid[i].label, re)) kept.push_back(i);
  return kept;
}


}  // namespace hm::studies

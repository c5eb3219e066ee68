// A study's directory and what it holds, read and checked for the driver (driver.h) and
// `--status` (study_status.h): DIR/study.json (the settings the grid was made from and the
// sessions that ran it), DIR/results.jsonl (one record per finished run), DIR/in_progress/
// (the runs' work directories) and DIR/study.lock. Errors name the study and the file.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

inline constexpr const char* kResultsFile = "results.jsonl";
inline constexpr const char* kSettingsFile = "study.json";
inline constexpr const char* kInProgressDir = "in_progress";      // the runs' work directories (StudyRun::work_dir)
inline constexpr const char* kWorkConfigFile = "study_run.json";  // the config a work directory was made for
inline constexpr const char* kLockFile = "study.lock";            // held by the study process running in DIR

// study.json: what the grid was made from, and the sessions that ran it.
struct StudySettings {
  std::string study;
  StudyContext context;
  Json sessions = Json::array();  // [{"jobs", "wall_seconds"}]

  Json to_json() const;
  static StudySettings read(const std::string& path);  // throws naming the file
  void write(const std::string& path) const;           // atomically
};

std::string study_settings_file(const std::string& dir);  // DIR/study.json
std::string study_results_file(const std::string& dir);   // DIR/results.jsonl

// Options a study gained after `stored` was written take their defaults, so an older study
// directory still resumes (and compares equal to the same command with no --set).
Json with_new_option_defaults(const Json& defaults, Json stored);
// DIR/study.json of `spec`'s study (another study's directory is refused), the options the
// study gained since it was written taking their defaults: what --resume and --status run on.
StudySettings read_study_settings(const StudySpec& spec, const std::string& dir);
std::string default_study_dir(const StudySpec& spec, bool quick);  // runs/<name>[-quick]

// The grid, with its labels checked unique; `source` names where the options came from.
std::vector<StudyRun> make_grid(const StudySpec& spec, const StudyContext& context, const std::string& source);
// The records of `grid` found in `records`, in grid order; a recorded label with a different
// config means the results belong to other settings (refused, naming `where`).
std::vector<RunRecord> in_grid_order(const std::vector<StudyRun>& grid, const std::vector<RunRecord>& records,
                                     const std::string& where);
StudyInfo info_of(const StudySettings& settings, const std::string& name);  // jobs and wall time over sessions
// --only: the indices in todo of the grid runs whose label the pattern matches; a pattern that is
// not a regular expression or matches no label of the grid is refused, naming some labels.
std::vector<size_t> only_matching(const std::vector<StudyRun>& grid, const std::vector<size_t>& todo,
                                  const std::string& pattern);

// The records of a results.jsonl in file order. A line that does not parse (a torn write of
// a killed process) is skipped; a label recorded twice keeps its first record.
std::vector<RunRecord> read_results(const std::string& path);
Json record_json(const RunRecord& record);

// DIR/in_progress/<label as a file name>-<FNV-1a of the label>: distinct labels that read the
// same as file names ("k=1", "k 1") still get distinct directories.
std::filesystem::path work_dir_of(const std::string& dir, const std::string& label);
// The mid-run checkpoint a run keeps in its work directory (StudyFit's Trainer writes it there).
std::filesystem::path work_checkpoint_of(const std::filesystem::path& work_dir);
// The seconds of training behind that checkpoint, which the run resumes from: the driver adds
// them to the session's wall time, so a resumed run's recorded time covers its whole training
// whatever its result looks like. 0 without a checkpoint (or an unreadable one, which the run
// itself refuses).
double work_dir_training_seconds(const std::filesystem::path& work_dir);

// A study's grid and report read JSON that this session did not write: the options of a
// study.json, the records of a results.jsonl (from an older version, or edited by hand). A
// JSON key or type error there names the study and the file instead of escaping as a bare
// "key 'released_settings' not found" (found by fuzzing `study --from`, tests/fuzz/).
template <class F>
auto naming_json_errors(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Json::exception& e) {
    throw_error("study", what + ": " + e.what());
  }
}

}  // namespace hm::studies

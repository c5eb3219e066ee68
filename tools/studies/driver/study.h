// The study registry: a paper's experiment as a grid of independent training runs, a run
// function and a report, registered by name from the study's own folder
// (tools/studies/<study>/register.cpp) and run by `harmonic study NAME`:
//
//   const StudyRegistration registration{{
//       .name = "fourier-toy",
//       .description = "...",
//       .modes = "quick: ..., full: ...",
//       .options = {{"epochs", 0}},                    // the study's own --set keys (device: common)
//       .grid = [](const StudyContext& c) { ... },     // the runs of a mode
//       .run = [](const StudyRun& r) { ... },          // trains one run, returns its result
//       .report = [](const ReportInput& in) { ... }}};  // writes the tables and figures, says the claims
//
// The driver (tools/studies/driver/driver.h) appends each finished run to DIR/results.jsonl as one
// durable JSON line, so Ctrl-C or a crash loses only the runs in flight, and
// `--resume DIR` runs only what is missing.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hm::studies {

using Json = nlohmann::json;

// The settings every study has, whatever its grid: a plan starts from these (its `common`).
struct StudyCommon {
  bool quick = false;           // the study's reduced grid (minutes on 2 cores)
  std::vector<uint64_t> seeds;  // empty: the study's default for the mode
  std::string device = "cpu";   // where every run trains: "cpu", "cuda", "cuda:N"
  // The paper's model sizes and training lengths (a GPU's job); a study takes its full mode's
  // seeds there.
  bool paper_scale = false;
};

// What a mode asks of the grid: quick or full, the seeds (empty: the study's default for the
// mode) and the options (the study's `options` defaults, with the common "device" and
// "paper_scale" that registration adds, updated by --set).
struct StudyContext {
  bool quick = false;
  std::vector<uint64_t> seeds;
  Json options = Json::object();

  // quick, seeds and the options "device" (checked to name a device; "cpu" where absent) and
  // "paper_scale" (false where absent).
  StudyCommon common() const;
  // The option `key`: an object of task config keys the study merges into its runs (--set
  // 'task={"trainer":{"steps":100}}'); throws naming `study` when it is anything else.
  Json task_keys(const std::string& key, const std::string& study) const;
};

// One point of the grid. The label is unique within the grid and names the run in progress
// lines, results.jsonl and errors; config is everything run() needs (JSON, so a resumed study
// can check that a recorded run was made with the same settings).
struct StudyRun {
  std::string label;
  Json config;
  double cost = 1.0;  // relative cost (slowest runs start first; ETA)
  // The study's directory, set by the driver when the run starts (not part of the config, so
  // a moved study still resumes): where a run may keep files of its own, e.g. a trained model.
  std::string dir = {};
  // Set by the driver: a directory of this run's own (DIR/in_progress/<label>), empty or left
  // by an earlier session's run of the same label and config, removed once the run's result is
  // recorded. A run that checkpoints there (StudyFit, study_trainer.h) resumes after Ctrl-C, a
  // crash or a kill instead of starting over; "" (tests, a report): no such directory.
  std::string work_dir = {};
};

// One finished run as recorded in results.jsonl.
struct RunRecord {
  std::string label;
  Json config;
  Json result;
  double seconds = 0;  // the run's wall time, across resumes (work_dir_training_seconds, study_dir.h)
};

// How the study ran (for the report's timing lines).
struct StudyInfo {
  std::string name;
  bool quick = false;
  int jobs = 1;
  double wall_seconds = 0;   // summed over the sessions that ran it (resumes)
  size_t grid_runs = 0;      // the runs of the study's grid (0: not known)
  size_t recorded_runs = 0;  // the runs of the report; fewer than grid_runs: a partial report
};

struct ReportInput {
  std::string dir;                 // where the report files go
  std::string records_dir;         // the study directory the records come from (--from's, or dir)
  std::vector<RunRecord> records;  // every run of the grid, in grid order
  StudyInfo info;
};

// What a report wrote, and the lines printed after it (the headline results and the claims).
struct StudyReport {
  std::vector<std::string> files;
  std::vector<std::string> headline;
};

struct StudySpec {
  std::string name;         // "fourier-toy"
  std::string description;  // one line: the paper, its section, the tables and figures
  std::string modes;        // what quick and full run, and about how long on 2 cores
  // The study's own options; registration adds "device" ("cpu") and, with has_paper_scale,
  // "paper_scale" (false): StudyContext::common() reads them.
  Json options = Json::object();
  bool has_paper_scale = true;  // the study has a paper-scale grid
  // Options (over `options`) that shrink the quick grid's first run to seconds on any device:
  // the suite runs that run on the CPU and on the emulated CUDA device for every study.
  Json smoke = Json::object();
  std::function<std::vector<StudyRun>(const StudyContext&)> grid;
  // Trains one run; returns its result (must be a JSON object). Throws train::RunInterrupted
  // when it stopped early on Ctrl-C (train::stop_requested()).
  std::function<Json(const StudyRun&)> run;
  // The metrics shown on a run's progress line ("kl 0.1160 smooth 0.0570").
  std::function<std::string(const RunRecord&)> describe;
  // Writes the report into in.dir.
  std::function<StudyReport(const ReportInput&)> report;
};

// The grid's runs made from a study's run specs: each one's label, config and cost.
template <class Spec, class Label, class Config, class Cost>
std::vector<StudyRun> study_runs(const std::vector<Spec>& specs, Label label, Config config, Cost cost) {
  std::vector<StudyRun> runs;
  runs.reserve(specs.size());
  for (const Spec& r : specs) runs.push_back({label(r), config(r), cost(r)});
  return runs;
}

// Every registered study, by name order.
std::vector<StudySpec> all_studies();
// The study called name; throws listing the registered names.
const StudySpec& find_study(const std::string& name);

// Registers a study at static initialisation (the study's folder is linked as objects).
struct StudyRegistration {
  explicit StudyRegistration(StudySpec spec);
};

}  // namespace hm::studies

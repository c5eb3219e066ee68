// Runs a registered study (tools/studies/driver/study.h) durably: the grid on a pool of threads
// (tools/train/run_pool.h), each finished run appended to DIR/results.jsonl as one fsync'ed
// JSON line, the study's settings in DIR/study.json, and the report written when every run
// is done. Ctrl-C lets the runs in flight stop at their next step; `--resume DIR` reads
// study.json and results.jsonl and runs only the missing labels, as does the same command run
// again (other settings in a directory with results are refused unless --force starts over).
// Each run in flight has a work directory DIR/in_progress/<label> (StudyRun::work_dir): runs
// that checkpoint there (StudyFit) continue from their last checkpoint after Ctrl-C or a kill
// instead of from step 0; it is removed when the run is recorded, and --force removes them all.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/driver/study_dir.h"  // read_results, the directory's files

namespace hm::studies {

// `--status` without a directory: the study's directory as --out and --quick name it.
inline constexpr const char* kStatusDefaultDir = "(default)";

struct StudyArgs {
  bool quick = false;
  int jobs = 0;                   // 0: the hardware threads
  std::vector<uint64_t> seeds;    // empty: the study's default for the mode
  std::vector<std::string> sets;  // "key=value" on the study's options
  std::string out;                // default runs/<name> or runs/<name>-quick
  std::string resume;             // finish the interrupted study in this directory
  std::string from;               // rebuild the report from this directory (or its results.jsonl)
  std::string status;             // print what is done, in flight and left in this directory; run nothing
                                  // (kStatusDefaultDir: the one --out / --quick name)
  bool force = false;             // start over where an earlier study with other settings is
  // Train only the runs whose label this regular expression matches (ECMAScript, searched, e.g.
  // " d64 " or "seed=1$"); the rest stay to run. A session-limited machine trains a study's
  // main rows first; the report is written when the whole grid is recorded.
  std::string only;
  // > 0: measure this many steps of the selected runs (--only's, else the grid's first) and print
  // their projected training time instead of running the study (projection.h).
  int64_t project = 0;
};

struct StudyOutcome {
  std::string dir;
  size_t done = 0, total = 0;  // runs recorded / in the grid
  bool interrupted = false;    // stopped by Ctrl-C before the runs it was to train were done (no report)
  std::vector<std::string> files;
};

// Runs (or resumes, or only reports) the study; progress lines go to log (nullptr: silent).
StudyOutcome run_study(const StudySpec& spec, const StudyArgs& args, std::FILE* log = stdout);

}  // namespace hm::studies

// A paper study's committed run (tools/studies/<study>/full_run, or another folder beside it:
// study.json, results.jsonl and the report), checked the same way for every study that commits one.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "tests/helpers.h"
#include "harmonic/tools/studies/driver/driver.h"

namespace hm::test {

// A study's committed run folder in the source tree (tools/studies/<study_folder>/<run_folder>).
inline std::string committed_run_dir(const std::string& study_folder, const std::string& run_folder = "full_run") {
  return std::string(HARMONIC_SOURCE_DIR) + "/tools/studies/" + study_folder + "/" + run_folder;
}

// Reports the committed run again with --from into a scratch directory: every record is read,
// today's full grid still has `grid_runs` runs, and summary.md comes out byte for byte as
// committed (a later session continues the run from a copy of study.json and results.jsonl).
inline studies::StudyOutcome check_committed_full_run(const std::string& study, const std::string& study_folder,
                                                      size_t grid_runs, const std::string& run_folder = "full_run") {
  const std::string committed = committed_run_dir(study_folder, run_folder);
  const size_t recorded = studies::read_results(committed + "/results.jsonl").size();
  REQUIRE(recorded >= 1);
  ScratchDir dir;
  studies::StudyArgs args;
  args.from = committed;
  args.out = dir.str();
  const studies::StudyOutcome out = studies::run_study(studies::find_study(study), args, nullptr);
  CHECK(out.done == recorded);
  CHECK(out.total == grid_runs);
  CHECK(read_text(dir.str() + "/summary.md") == read_text(committed + "/summary.md"));
  return out;
}

}  // namespace hm::test

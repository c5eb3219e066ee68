// The files a paper study's report writes, in one place: the directory (created if missing),
// summary.json and summary.md (each written atomically), the figures the study draws there,
// and the claims as the headline lines printed after the run.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

// The fields every study's summary.json opens with: {"study", "mode", "jobs", "runs",
// "wall_seconds", "run_seconds_total", "std"}, the runs and their total time summed over the
// groups' per-run wall times (one MetricStats per group), and {"partial": {"runs", "grid_runs"}}
// when info.recorded_runs < info.grid_runs (a --from report of a study still running).
Json summary_header(const std::string& study, const StudyInfo& info,
                    const std::vector<const report::MetricStats*>& group_seconds);

// figures(dir) draws the study's figures and returns their file names. claim_width pads the
// claim column of the headline lines. A partial summary's markdown says so below its title.
StudyReport write_summary_files(const std::string& dir, const Json& summary, const std::string& markdown,
                                const std::function<std::vector<std::string>(const std::string&)>& figures,
                                const std::vector<report::ClaimResult>& claims, int claim_width = 72);

}  // namespace hm::studies

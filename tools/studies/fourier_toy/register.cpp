// `harmonic study fourier-toy`: the Fourier head paper's toy study registered with the study
// driver (tools/studies/driver/driver.h): the grid of plan.h, one run of run.h per point, the report
// and figures of report.h.
#include <fmt/format.h>

#include <cmath>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fourier_toy/plan.h"
#include "harmonic/tools/studies/fourier_toy/report.h"

namespace hm::studies {
namespace {

ToyStudyPlan fourier_toy_plan_of(const StudyContext& c) {
  ToyStudyPlan plan{.common = c.common()};
  plan.epochs = c.options.at("epochs").get<int64_t>();
  for (const Json& d : c.options.at("datasets")) plan.datasets.push_back(data::parse_toy_distribution(d.get<std::string>()));
  return plan;
}

std::vector<ToyRunResult> results_of(const std::vector<RunRecord>& records) {
  std::vector<ToyRunResult> results;
  results.reserve(records.size());
  for (const RunRecord& r : records) {
    Json run = r.result;
    run["config"] = r.config;
    results.push_back(toy_run_from_json(run));
  }
  return results;
}

ToyStudyInfo toy_info(const StudyInfo& info) {
  return {.mode = info.quick ? "quick" : "full", .jobs = info.jobs, .wall_seconds = info.wall_seconds};
}

StudySpec fourier_toy_study() {
  StudySpec s;
  s.name = "fourier-toy";
  s.description =
      "Fourier head toy study (paper section 4.1, Tables 1/5/6/7, Figures 1/2/8/9/10; Appendix B: Table 4, Figure 6)";
  s.modes = fmt::format(
      "quick: seed 1, linear, gmm, regression, fourier N 2..20 and 12 with gamma 1e-6, gmm-mle, fourier-mle N "
      "4/8/12/16/20 on 3 datasets (60 runs, about 2 minutes on 2 cores); full: seeds 1 2 3 42, fourier and "
      "fourier-mle N 2..20 x gamma {{0, 1e-6}} (528 runs, about 11 minutes on 2 cores); {} epochs each",
      kToyFullEpochs);
  // 0 / []: the mode's epochs, all three datasets
  s.options = {{"epochs", 0}, {"datasets", Json::array()}};
  s.has_paper_scale = false;
  s.smoke = {{"epochs", 1}, {"datasets", {"gaussian"}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(toy_study_grid(fourier_toy_plan_of(c)), toy_run_label, toy_config_json, toy_run_cost);
  };
  s.run = [](const StudyRun& run) {
    Json result = toy_run_json(run_toy_density(toy_config_from_json(run.config)));
    result.erase("config");  // the record carries it
    return result;
  };
  s.describe = [](const RunRecord& r) {
    std::string metrics;
    for (const auto& [key, name] : {std::pair<const char*, const char*>{"kl", "kl"},
                                    {"smoothness", "smooth"},
                                    {"mse", "mse"},
                                    {"perplexity", "ppl"}}) {
      const Json& v = r.result.at("metrics").at(key);
      if (!v.is_null()) metrics += fmt::format(" {} {:.4f}", name, v.get<double>());
    }
    return metrics;
  };
  s.report = [](const ReportInput& in) {
    const std::vector<ToyRunResult> results = results_of(in.records);
    StudyReport out{write_toy_study(in.dir, results, toy_info(in.info)), {}};
    for (const ToyClaim& c : toy_claims(aggregate_toy_results(results)))
      out.headline.push_back(fmt::format("  {:<50} {}", c.claim, report::claim_verdict(c)));
    return out;
  };
  return s;
}

const StudyRegistration fourier_toy_registration{fourier_toy_study()};

}  // namespace
}  // namespace hm::studies

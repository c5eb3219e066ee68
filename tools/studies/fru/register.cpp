// `harmonic study fru`: the FRU paper's experiments registered with the study driver
// (tools/studies/driver/driver.h): the grid of plan.h, one run of run.h per point, the report and
// figures of report.h and figures.h.
#include <fmt/format.h>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fru/plan.h"
#include "harmonic/tools/studies/fru/report.h"
#include "harmonic/tools/studies/fru/run.h"

namespace hm::studies {
namespace {

FruStudyPlan fru_plan_of(const StudyContext& c) {
  FruStudyPlan plan{.common = c.common()};
  plan.released_settings = c.options.at("released_settings").get<bool>();
  for (const Json& p : c.options.at("parts")) plan.parts.push_back(parse_fru_part(p.get<std::string>()));
  plan.datasets = c.options.at("datasets").get<std::vector<std::string>>();
  plan.models = c.options.at("models").get<std::vector<std::string>>();
  for (FruPart p : kFruParts) plan.overrides[static_cast<int>(p)] = c.task_keys(fru_part_name(p), "study fru");
  return plan;
}

StudySpec fru_study() {
  StudySpec s;
  s.name = "fru";
  s.description = "Fourier Recurrent Unit (Zhang et al. 2018, section 6, Tables 1-3, Figures 3-8 and 10-12)";
  s.modes =
      "quick: seed 1; mix-sin and mix-poly-5 (1000 series, 10 epochs) with Figure 5 at epochs 0/5/10, pixel, "
      "permuted and row Fashion-MNIST at 14x14 (4096 images, 5 epochs), KJV genres (6 epochs): 28 runs, about 5 "
      "minutes on 2 cores; full: seeds 1 2 3, all four synthetic sets (4000 series, 10 epochs; Figure 5 at 0/2/5/10), "
      "images at 14x14 (10000 images, 10 epochs), KJV genres (10 epochs), and Appendix D's frequency ranges of FRU "
      "(13 points on row and pixel images at the image scale; quick takes them with --set "
      "'parts=[\"freq\"]'): 147 runs; --set paper_scale=true: the paper's sizes, 28x28 images and 100 epochs (with "
      "--set device=cuda on a GPU)";
  // parts: a subset of ["synthetic", "image", "text", "freq"] ([]: the mode's); datasets, models:
  // subsets of their data sets and model keys ([]: all); synthetic / image / text / freq: task
  // keys merged into that part's runs (--set 'synthetic={"size":200,"trainer":{"epochs":1}}').
  s.options = {{"parts", Json::array()},    {"datasets", Json::array()},   {"models", Json::array()},
               {"released_settings", true}, {"synthetic", Json::object()}, {"image", Json::object()},
               {"text", Json::object()},    {"freq", Json::object()}};
  s.smoke = {{"parts", {"synthetic"}}, {"synthetic", {{"size", 40}, {"length", 24}, {"units", 8}, {"batch_size", 4}, {"trainer", {{"epochs", 1}}}}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(fru_study_grid(fru_plan_of(c)), fru_run_label, fru_run_json, fru_run_cost);
  };
  s.run = [](const StudyRun& run) { return run_fru(fru_run_from_json(run.config), run.work_dir); };
  s.describe = [](const RunRecord& r) {
    const FruRunSpec spec = fru_run_from_json(r.config);
    const std::string metric = fru_metric(spec.part);
    const Json& v = r.result.at("final").at(metric);
    if (!v.is_number()) return std::string(" ") + metric + " nan";
    return spec.part == FruPart::Synthetic ? fmt::format(" test_mse {:.3e}", v.get<double>())
                                           : fmt::format(" test_accuracy {:.2f}%", 100 * v.get<double>());
  };
  s.report = [](const ReportInput& in) { return write_fru_study(in.dir, fru_runs_of(in.records), in.info); };
  return s;
}

const StudyRegistration fru_registration{fru_study()};

}  // namespace
}  // namespace hm::studies

// `harmonic study chronos`: the Fourier head paper's Chronos study registered with the study
// driver (tools/studies/driver/driver.h): the grid of plan.h, one run of run.h per point, the report
// and figures of report.h and figures.h.
#include <fmt/format.h>

#include "harmonic/tools/studies/chronos/plan.h"
#include "harmonic/tools/studies/chronos/report.h"
#include "harmonic/tools/studies/chronos/run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {
namespace {

constexpr const char* kChronosStudy = "study chronos";

ChronosStudyPlan chronos_plan_of(const StudyContext& c) {
  ChronosStudyPlan plan{.common = c.common()};
  const Json& o = c.options;
  plan.heads = o.at("heads").get<std::vector<std::string>>();
  plan.sizes = o.at("sizes").get<std::vector<std::string>>();
  plan.sweep_seeds = o.at("sweep_seeds").get<std::vector<uint64_t>>();
  plan.data_fractions = o.at("data_fractions").get<std::vector<double>>();
  plan.data_seeds = o.at("data_seeds").get<std::vector<uint64_t>>();
  plan.task = c.task_keys("task", kChronosStudy);
  return plan;
}

StudySpec chronos_study() {
  StudySpec s;
  s.name = "chronos";
  s.description =
      "Fourier head (Gillman et al. 2025, section 6, Appendix D.2, Tables 3 and 8, Figures 17, 18 and 19): Chronos T5 "
      "forecaster on generated KernelSynth + TSMixup series, linear vs Fourier heads over value bins (4094; 1022 in "
      "the full mode)";
  s.modes =
      "quick: seeds 1-3, a 1 + 1 layer d 32 T5 over 32 points of context, horizon 8, 3000 steps, linear vs "
      "Fourier-64: 6 runs, about 12 min on 2 cores; full: the d 64 2 + 2 layer T5 over 64 points, 1024 tokens, 12000 "
      "steps on "
      "40k series, Table 8's rows at the N that 1024 bins allow (linear, Fourier-64/128/256, Fourier-256 without "
      "regularisation and with uniform bins) on seeds 1-3, Figure 19's sizes d32 and d128 (linear, Fourier-256) and "
      "Figure 18's training sets of 1% and 10% of the series (linear, Fourier-256, seeds 1-4): 46 runs, hours (quick "
      "takes Figure 18 with --set 'data_fractions=[0.1]'); --set paper_scale=true: t5-efficient-mini (20M), context "
      "512, horizon 64, 4096 tokens, "
      "Fourier-64..550, 200k steps of batch 256 (with --set device=cuda on a GPU)";
  // heads: Table 8 row names ([]: the mode's); sizes: Figure 19's other sizes (d32, d64, d128,
  // mini; []: the mode's); data_fractions / data_seeds: Figure 18's shares of the training series
  // and their seeds ([]: the mode's); task: chronos keys merged into every run (--set
  // 'task={"trainer":{"steps":100}}').
  s.options = {{"heads", Json::array()},          {"sizes", Json::array()},      {"sweep_seeds", Json::array()},
               {"data_fractions", Json::array()}, {"data_seeds", Json::array()}, {"task", Json::object()}};
  s.smoke = {{"task", {{"series", 24}, {"mixup_series", 8}, {"held_out_series", 6}, {"series_length", 48}, {"context_length", 24}, {"horizon", 4}, {"d_model", 16}, {"d_ff", 32}, {"num_layers", 1}, {"num_heads", 2}, {"d_kv", 8}, {"windows_per_series", 4}, {"batch_size", 8}, {"eval_samples", 4}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(chronos_study_grid(chronos_plan_of(c)), chronos_run_label, chronos_run_json, chronos_run_cost);
  };
  s.run = [](const StudyRun& run) { return run_chronos(chronos_run_from_json(run.config), run.dir, run.work_dir); };
  s.describe = [](const RunRecord& r) {
    const Json& f = r.result.at("final");
    auto num = [](const Json& j, const char* k) {
      return j.is_object() && j.contains(k) ? j.at(k).get<double>() : NAN;
    };
    return fmt::format(" relative MASE {:.3f} (period {:.3f}), WQL {:.3f}, smoothness {:.4f}", num(f, "test_mase"),
                       num(f, "test_mase_period"), num(f, "test_wql"), num(f, "test_smoothness"));
  };
  s.report = [](const ReportInput& in) { return write_chronos_study(in.dir, chronos_runs_of(in.records), in.info); };
  return s;
}

const StudyRegistration chronos_registration{chronos_study()};

}  // namespace
}  // namespace hm::studies

// `harmonic study decision-transformer`: the Fourier head paper's Decision Transformer study
// registered with the study driver (tools/studies/driver/driver.h): the grid of plan.h, one run of
// run.h per point, the report and figures of report.h and figures.h.
#include <fmt/format.h>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/decision_transformer/game_report.h"
#include "harmonic/tools/studies/decision_transformer/plan.h"
#include "harmonic/tools/studies/decision_transformer/report.h"
#include "harmonic/tools/studies/decision_transformer/run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {
namespace {

constexpr const char* kDecisionTransformerStudy = "study decision-transformer";

DtStudyPlan decision_transformer_plan_of(const StudyContext& c) {
  DtStudyPlan plan{.common = c.common()};
  const Json& o = c.options;
  plan.frequencies = o.at("frequencies").get<std::vector<int64_t>>();
  plan.sweep_seeds = o.at("sweep_seeds").get<std::vector<uint64_t>>();
  plan.main_frequencies = o.at("main_frequencies").get<int64_t>();
  plan.task = c.task_keys("task", kDecisionTransformerStudy);
  plan.parts = o.at("parts").get<std::vector<std::string>>();
  for (const Json& m : o.at("model_sizes")) {
    check(m.is_array() && m.size() == 2, kDecisionTransformerStudy, "option 'model_sizes' holds [n_layer, n_embd] pairs, got {}",
          m.dump());
    plan.model_sizes.push_back({m.at(0).get<int64_t>(), m.at(1).get<int64_t>()});
  }
  plan.data_sizes = o.at("data_sizes").get<std::vector<int64_t>>();
  plan.game = o.at("game").get<std::string>();
  return plan;
}

StudySpec decision_transformer_study() {
  StudySpec s;
  s.name = "decision-transformer";
  s.description =
      "Fourier head (Gillman et al. 2025, section 5, Table 2, Figures 4, 13, 14 and 15): Decision Transformer on the "
      "built-in Seaquest stand-in, linear vs Fourier action heads";
  s.modes =
      "quick: seed 1, a 2-layer d 64 model over 10 steps of context on 50k transitions for 1500 steps, linear vs "
      "Fourier-8 and Fourier-2: 3 runs (--set 'parts=[\"main\",\"model\",\"data\"]' adds linear and Fourier-8 at "
      "1 layer d 32 and on 20k transitions: 7 runs); full: the paper's model (6 layers, 8 heads, d 128, 30 steps of "
      "context) on 200k transitions for 3000 steps, linear and Fourier-8 on seeds 1-4, Fourier-N for every other "
      "even N from 2 to 32 on seeds 1-2, and linear and Fourier-8 on seeds 1-2 at 2 layers d 64 and 4 layers d 96 "
      "(Figure 14) and on 50k and 100k transitions (Figure 15): 54 runs; --set paper_scale=true: 500k transitions x "
      "5 epochs at batch 128 (with --set device=cuda on a GPU); --set game=bankheist|doubledunk|gravitar: that "
      "game's Table 2 column and Figure 16 panel, full: linear, Fourier-8 and Fourier-14 on seeds 1-4 and the sweep "
      "on seeds 1-2, no ablations: 40 runs";
  // frequencies: the sweep's Fourier heads besides main_frequencies ([]: the mode's); task:
  // arcade-dt keys merged into every run (--set 'task={"trainer":{"steps":100}}'); parts: of
  // main, model, data ([]: the mode's); model_sizes: [[n_layer, n_embd], ...] and data_sizes:
  // transitions of the ablations ([]: the mode's); game: the arcade game (data/arcade/games.h).
  s.options = {{"frequencies", Json::array()}, {"sweep_seeds", Json::array()}, {"main_frequencies", 8},
               {"task", Json::object()},       {"parts", Json::array()},       {"model_sizes", Json::array()},
               {"data_sizes", Json::array()},  {"game", kDtDefaultGame}};
  s.smoke = {{"task", {{"dataset_steps", 3000}, {"val_steps", 600}, {"max_episode_steps", 200}, {"n_layer", 1}, {"n_head", 2}, {"n_embd", 16}, {"context_length", 5}, {"batch_size", 16}, {"eval_episodes", 2}, {"reference_episodes", 3}, {"val_windows", 64}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 1}}}}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(dt_study_grid(decision_transformer_plan_of(c)), dt_run_label, head_run_json, dt_run_cost);
  };
  s.run = [](const StudyRun& run) {
    return run_decision_transformer(head_run_from_json(run.config, kDtStudy), run.work_dir);
  };
  s.describe = [](const RunRecord& r) {
    const Json& best = r.result.at("best");
    const Json& f = r.result.at("final");
    auto num = [](const Json& j, const char* k) {
      return j.is_object() && j.contains(k) ? j.at(k).get<double>() : NAN;
    };
    return fmt::format(" normalised return best {:.1f} final {:.1f}, smoothness {:.4f}",
                       num(best, "normalized_return_mean"), num(f, "normalized_return_mean"), num(f, "val_smoothness"));
  };
  s.report = [](const ReportInput& in) {
    // The main N is a study option; the records' heads say which N ran on every seed.
    int64_t main = 8;
    size_t most = 0;
    std::vector<DtRun> runs = dt_runs_of(in.records);
    for (const DtRun& r : runs) {
      if (!r.spec.ablation.empty()) continue;
      size_t n = 0;
      for (const DtRun& o : runs) n += o.spec.ablation.empty() && o.spec.head.frequencies == r.spec.head.frequencies;
      if (r.spec.head.fourier() && n > most) most = n, main = r.spec.head.frequencies;
    }
    const std::string game = runs.empty() ? kDtDefaultGame : dt_game_of(runs.front().spec.task_config);
    if (game != kDtDefaultGame) return write_dt_game_study(in.dir, runs, in.info, main, game);
    return write_dt_study(in.dir, runs, in.info, main);
  };
  return s;
}

const StudyRegistration decision_transformer_registration{decision_transformer_study()};

}  // namespace
}  // namespace hm::studies

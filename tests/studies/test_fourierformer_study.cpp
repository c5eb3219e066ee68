// `harmonic study fourierformer` (tools/studies/fourierformer/): the grid of each mode, run
// configs round-tripping through JSON, and the report's aggregates, claims, tables and
// figures on runs with known numbers (a diverged odd-p run included).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "tests/helpers.h"
#include "tests/study_helpers.h"
#include "harmonic/tools/studies/fourierformer/figures.h"
#include "harmonic/tools/studies/fourierformer/plan.h"
#include "harmonic/tools/studies/fourierformer/report.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

size_t count_task(const std::vector<FfRunSpec>& runs, FfTask task) {
  return std::ranges::count(runs, task, &FfRunSpec::task);
}

// The result points into the grid: a temporary grid would leave it dangling (ASan found one).
const FfRunSpec* find_run(std::vector<FfRunSpec>&& grid, FfTask task, const std::string& variant, uint64_t seed) = delete;
const FfRunSpec* find_run(const std::vector<FfRunSpec>& grid, FfTask task, const std::string& variant, uint64_t seed) {
  for (const FfRunSpec& r : grid)
    if (r.task == task && r.variant.name() == variant && r.seed == seed) return &r;
  return nullptr;
}

// A finished LM run: validation perplexity falling from 1000 to `ppl` over two evaluations,
// test = val + 1, head distances `heads`, or a divergence at step 7.
RunRecord lm_record(const FfRunSpec& r, double ppl, double heads, bool diverged = false) {
  Json final_metrics = {{"val_ppl", ppl},           {"val_loss", std::log(ppl)},
                        {"test_ppl", ppl + 1},      {"test_head_l2_mean", heads},
                        {"test_head_l2_std", 0.5},  {"train_head_l2_mean", heads + 0.1},
                        {"train_head_l2_std", 0.4}, {"r_mean", r.variant.fourier ? Json(1.5) : Json(nullptr)}};
  Json result = {{"params", 1000},
                 {"steps", 20},
                 {"train_seconds", 2.0},
                 {"items_per_second", 500.0},
                 {"curve", {{{"step", 0}, {"val_ppl", 1000.0}}, {{"step", 10}, {"val_ppl", 2 * ppl}}}},
                 {"train_loss", {{{"step", 10}, {"loss", 5.0}}}},
                 {"final", final_metrics},
                 {"diverged", nullptr}};
  if (diverged) {
    result["diverged"] = {{"step", 7}, {"loss", "nan"}};
    for (auto& [k, v] : result["final"].items()) v = nullptr;
    result["curve"].erase(1);
  } else {
    result["curve"].push_back({{"step", 20}, {"val_ppl", ppl}, {"r_mean", final_metrics.at("r_mean")}});
  }
  if (r.variant.r_lr != 0.0 && !diverged) {  // each layer's R: layer 0 ends at 1 + seed, layer 1 at 3
    const double layer0 = 1.0 + static_cast<double>(r.seed);
    result["final"]["r_layer0"] = layer0, result["final"]["r_layer1"] = 3.0;
    result["curve"][0]["r_layer0"] = 2.0, result["curve"][0]["r_layer1"] = 2.0;
    result["curve"][2]["r_layer0"] = layer0, result["curve"][2]["r_layer1"] = 3.0;
  }
  return {ff_run_label(r), ff_run_json(r), result, 3.0};
}

// The runs that do not set R's lr keep their recorded configs (no fourier_r_lr key, no r_lr).
bool log_r_or_main_has_r_lr(const std::vector<FfRunSpec>& grid) {
  for (const FfRunSpec& r : grid)
    if (r.variant.r_lr == 0.0 && (r.task_config.contains("fourier_r_lr") || ff_run_json(r).contains("r_lr"))) return true;
  return false;
}

RunRecord vit_record(const FfRunSpec& r, double top1) {
  Json result = {{"params", 500},
                 {"steps", 10},
                 {"items_per_second", 100.0},
                 {"curve", {{{"step", 0}, {"test_accuracy", 0.1}}, {{"step", 10}, {"test_accuracy", top1}}}},
                 {"train_loss", {{{"step", 10}, {"loss", 1.0}}}},
                 {"final", {{"test_accuracy", top1}, {"test_top5", 0.99}}},
                 {"diverged", nullptr}};
  return {ff_run_label(r), ff_run_json(r), result, 2.0};
}

const report::ClaimResult* find_claim(const std::vector<report::ClaimResult>& claims, const std::string& fragment) {
  for (const report::ClaimResult& c : claims)
    if (c.claim.find(fragment) != std::string::npos) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("fourierformer study: quick and full grids") {
  FfStudyPlan quick{.common = {.quick = true}};
  const auto q = ff_study_grid(quick);
  // LM softmax + Fourier, x^1 and x^2, the medium pair (seed 1), ViT softmax + Fourier.
  CHECK(q.size() == 8);
  const FfRunSpec* medium = find_run(q, FfTask::Lm, "fourier p=4 R=2 medium", 1);
  REQUIRE(medium);
  CHECK(medium->task_config.at("n_embd").get<int64_t>() == 256);     // the paper's medium width
  CHECK(medium->task_config.at("block_size").get<int64_t>() == 96);  // 1.5x the small's context
  CHECK(find_run(q, FfTask::Lm, "softmax medium", 1));
  CHECK(ff_run_from_json(ff_run_json(*medium)).variant.medium);
  CHECK(count_task(q, FfTask::Vit) == 2);
  CHECK(find_run(q, FfTask::Lm, "fourier p=1 R=2", 1));
  CHECK(find_run(q, FfTask::Vit, "fourier p=4 R=1", 1));  // images: R init 1
  CHECK(q.front().save_model);                            // the main LM runs keep their model

  const auto full = ff_study_grid(FfStudyPlan{});
  // Seeds 1-5 (the paper averages over five): the main pair, 4 powers + 5 R inits + 1 vector,
  // the ViT pair, the authors' code's two settings, the medium pair and the medium R_init 0.5 row,
  // and log R at its own lr.
  CHECK(full.size() == 5 * (2 + 10 + 2 + 2 + 3 + 1));
  const FfRunSpec* learned = find_run(full, FfTask::Lm, fmt::format("fourier p=4 R=2 logR rlr={:g}", kFfLearnedRLr), 3);
  REQUIRE(learned);
  CHECK(learned->task_config.at("fourier_log_r").get<bool>());
  CHECK(learned->task_config.at("fourier_r_lr").get<double>() == kFfLearnedRLr);
  CHECK(ff_run_from_json(ff_run_json(*learned)).variant.r_lr == kFfLearnedRLr);
  CHECK(!log_r_or_main_has_r_lr(full));
  // The lr sweep: the part alone on seed 1 at each lr; quick mode leaves the part out.
  FfStudyPlan sweep{.common = {.seeds = {1}}, .parts = {"learned_r"}, .r_lrs = {0.01, 0.1}};
  const auto sw = ff_study_grid(sweep);
  CHECK(sw.size() == 2);
  CHECK(find_run(sw, FfTask::Lm, "fourier p=4 R=2 logR rlr=0.01", 1));
  CHECK(!find_run(q, FfTask::Lm, fmt::format("fourier p=4 R=2 logR rlr={:g}", kFfLearnedRLr), 1));
  CHECK(throws_with([] { ff_study_grid(FfStudyPlan{.r_lrs = {0}}); }, {"R's lr 0"}));
  const FfRunSpec* wide = find_run(full, FfTask::Lm, "fourier p=4 R=0.5 medium", 5);
  REQUIRE(wide);
  CHECK(wide->task_config.at("fourier_r_init").get<double>() == 0.5);
  CHECK(wide->task_config.at("n_embd").get<int64_t>() == 256);
  CHECK(!find_run(q, FfTask::Lm, "fourier p=4 R=0.5 medium", 1));  // only with the R part
  const FfRunSpec* eps = find_run(full, FfTask::Lm, "fourier p=4 R=2 eps=1e-06", 5);
  REQUIRE(eps);
  CHECK(eps->task_config.at("fourier_eps").get<double>() == 1e-6);
  CHECK(!eps->task_config.contains("fourier_log_r"));
  const FfRunSpec* log_r = find_run(full, FfTask::Lm, "fourier p=4 R=2 logR", 1);
  REQUIRE(log_r);
  CHECK(log_r->task_config.at("fourier_log_r").get<bool>());
  CHECK(ff_run_from_json(ff_run_json(*log_r)).variant.name() == "fourier p=4 R=2 logR");
  CHECK(ff_run_from_json(ff_run_json(*eps)).variant.eps == 1e-6);
  // The runs the authors' settings leave alone keep their recorded configs and JSON.
  CHECK(!find_run(full, FfTask::Lm, "fourier p=4 R=2", 1)->task_config.contains("fourier_eps"));
  CHECK(!ff_run_json(*find_run(full, FfTask::Lm, "fourier p=4 R=2", 1)).contains("eps"));
  CHECK(find_run(full, FfTask::Lm, "fourier p=3 R=2", 5));
  CHECK(!find_run(full, FfTask::Lm, "fourier p=3 R=2", 6));
  std::set<std::string> labels;
  for (const FfRunSpec& r : full) labels.insert(ff_run_label(r));
  CHECK(labels.size() == full.size());
  const FfRunSpec* vec = find_run(full, FfTask::Lm, "fourier p=4 R=2 vector", 2);
  REQUIRE(vec);
  CHECK(vec->task_config.at("fourier_r_per_dim").get<bool>());
  CHECK(vec->task_config.at("seed").get<uint64_t>() == 2);
  CHECK(!vec->save_model);
  // The main Fourier run is the ablations' p = 4, R = 2 row: not repeated.
  size_t main_fourier = 0;
  for (const FfRunSpec& r : full) main_fourier += r.variant.name() == "fourier p=4 R=2" ? 1 : 0;
  CHECK(main_fourier == 5);

  // Only the p ablation, on its own seeds: the x^4 reference runs come along.
  FfStudyPlan powers{.common = {.seeds = {1}}, .parts = {"p"}, .ps = {3}, .ablation_seeds = {5}};
  const auto p = ff_study_grid(powers);
  CHECK(p.size() == 2);
  CHECK(find_run(p, FfTask::Lm, "fourier p=4 R=2", 5));
  CHECK(find_run(p, FfTask::Lm, "fourier p=3 R=2", 5));

  // Task overrides reach every run of their task; the variant keys win.
  FfStudyPlan over{.common = {.quick = true}, .parts = {"lm"}, .lm = {{"n_layer", 1}, {"attention", "softmax"}}};
  for (const FfRunSpec& r : ff_study_grid(over)) {
    CHECK(r.task_config.at("n_layer").get<int>() == 1);
    CHECK(r.task_config.at("attention").get<std::string>() == (r.variant.fourier ? "fourier" : "softmax"));
  }
  CHECK(throws_with([] { ff_study_grid(FfStudyPlan{.parts = {"lm", "nosuch"}}); }, {"unknown part 'nosuch'"}));
  CHECK(throws_with([] { ff_study_grid(FfStudyPlan{.ps = {0}}); }, {"p=0"}));
  CHECK(throws_with([] { ff_study_grid(FfStudyPlan{.r_inits = {-1}}); }, {"R init -1"}));
}

TEST_CASE("fourierformer study: run configs round-trip and name their directories") {
  for (const FfRunSpec& r : ff_study_grid(FfStudyPlan{})) {
    const FfRunSpec back = ff_run_from_json(ff_run_json(r));
    CHECK(ff_run_label(back) == ff_run_label(r));
    CHECK(back.task_config == r.task_config);
    CHECK(back.save_model == r.save_model);
    CHECK(ff_run_cost(r) > 0);
  }
  const std::vector<FfRunSpec> grid = ff_study_grid(FfStudyPlan{});  // r points into it
  const FfRunSpec* r = find_run(grid, FfTask::Lm, "fourier p=4 R=0.1", 1);
  REQUIRE(r);
  CHECK(ff_run_label(*r) == "lm fourier p=4 R=0.1 seed=1");
  CHECK(ff_model_dir_name(*r) == "lm-fourier-p4-R0.1-seed1");
  CHECK(throws_with([] { ff_run_from_json({{"task", "kjv-lm"}}); }, {"study fourierformer", "malformed run config"}));
}

TEST_CASE("fourierformer study: report, claims, divergence and figures on known runs") {
  FfStudyPlan plan{.common = {.seeds = {1, 2}}};
  const auto grid = ff_study_grid(plan);
  std::vector<RunRecord> records;
  for (const FfRunSpec& r : grid) {
    if (r.task == FfTask::Vit) {
      records.push_back(vit_record(r, r.variant.fourier ? 0.88 : 0.86));
      continue;
    }
    const std::string v = r.variant.name();
    if (v == "softmax")
      records.push_back(lm_record(r, 60, 3.0));
    else if (v == "fourier p=4 R=2")
      records.push_back(lm_record(r, 55 + static_cast<double>(r.seed), 4.0));
    else if (v == "fourier p=1 R=2")
      records.push_back(lm_record(r, 0, 0, /*diverged=*/true));
    else if (v == "fourier p=3 R=2")
      records.push_back(lm_record(r, r.seed == 1 ? 200 : 57, 4.0));  // 1/2 seeds
    else if (v == "softmax medium")
      records.push_back(lm_record(r, 50, 3.0));
    else if (v == "fourier p=4 R=2 medium")  // leads softmax by 5, 4 (small: 4, 3)
      records.push_back(lm_record(r, 44 + static_cast<double>(r.seed), 4.0));
    else
      records.push_back(lm_record(r, 58, 4.0));
  }
  const auto groups = aggregate_ff_runs(ff_runs_of(records));
  const FfGroup* four = find_ff_group(groups, FfTask::Lm, "fourier p=4 R=2");
  REQUIRE(four);
  CHECK(four->val_ppl.mean == doctest::Approx(56.5));
  CHECK(four->untrained_val_ppl.mean == doctest::Approx(1000));
  CHECK(four->r_final.mean == doctest::Approx(1.5));
  const FfGroup* p1 = find_ff_group(groups, FfTask::Lm, "fourier p=1 R=2");
  REQUIRE(p1);
  CHECK(p1->diverged == 2);
  CHECK(p1->diverged_steps == std::vector<int64_t>{7, 7});
  CHECK(std::isnan(p1->val_ppl.mean));

  const auto claims = ff_claims(groups);
  const auto* t1 = find_claim(claims, "test perplexity below softmax");
  REQUIRE(t1);
  CHECK(t1->holds);
  CHECK(t1->seeds_holding == 2);
  const auto* x1 = find_claim(claims, "x^1 does not converge");
  REQUIRE(x1);
  CHECK(x1->holds);
  const auto* x3 = find_claim(claims, "x^3 does not converge");
  REQUIRE(x3);
  CHECK(x3->seeds_holding == 1);  // 200 >= 1.5 x 56 on seed 1; 57 < 1.5 x 57 on seed 2
  CHECK(find_claim(claims, "heads farther apart")->holds);
  CHECK(find_claim(claims, "Fourier ViT top-1")->holds);
  CHECK(!find_claim(claims, "x^6 validation perplexity below x^4")->holds);  // 58 vs 56.5
  const auto* lead = find_claim(claims, "lead over softmax larger at medium width");
  REQUIRE(lead);
  CHECK(lead->holds);
  CHECK(lead->seeds_holding == 2);
  CHECK(find_claim(claims, "below softmax's at medium width")->holds);
  CHECK(find_claim(claims, "eps=1e-06) validation perplexity below softmax")->holds);  // 58 < 60
  CHECK(find_claim(claims, "logR) validation perplexity below softmax")->holds);
  // log R at its own lr: 58 against softmax's 60 (holds) and the main Fourier run's 56.5 (does not).
  const FfGroup* learned =
      find_ff_group(groups, FfTask::Lm, fmt::format("fourier p=4 R=2 logR rlr={:g}", kFfLearnedRLr));
  REQUIRE(learned);
  REQUIRE(learned->r_layer_final.size() == 2);
  CHECK(learned->r_layer_final[0].mean == doctest::Approx(2.5));  // seeds 1, 2: 2 and 3
  CHECK(learned->r_layer_final[0].std == doctest::Approx(0.5));
  CHECK(learned->r_layer_curves[1].mean.back() == doctest::Approx(3.0));
  CHECK(four->r_layer_final.empty());  // recorded without each layer's R
  const std::string at_lr = fmt::format("learned at lr {:g})", kFfLearnedRLr);
  const auto* beats_softmax = find_claim(claims, at_lr + " validation perplexity below softmax");
  REQUIRE(beats_softmax);
  CHECK(beats_softmax->seeds_holding == 2);
  const auto* beats_main = find_claim(claims, at_lr + " validation perplexity below the main Fourier");
  REQUIRE(beats_main);
  CHECK(!beats_main->holds);

  ScratchDir dir;
  StudyInfo info{.name = "fourierformer", .quick = false, .jobs = 2, .wall_seconds = 60};
  const StudyReport rep = write_ff_study(dir.str(), ff_runs_of(records), info);
  const std::string md = read_text(dir.str() + "/summary.md");
  for (const char* s :
       {"Table 1", "Table 2", "Table 3", "Table 4", "Table 5", "34.29", "32.85", "not converge",
        "diverged 2/2 seeds, at step 7, 7", "73.25", "7.45 ± 2.50", "4.00 ± 0.50", "King James Bible", "Fashion-MNIST",
        "The medium model", "29.60", "28.01", "The authors' released code's settings", "log R learned",
        "A learned R at its own learning rate", "| 0 | 2.000 ± 0.000 | 2.500 ± 0.500 | +0.500 ± 0.500 |",
        "| 1 | 2.000 ± 0.000 | 3.000 ± 0.000 | +1.000 ± 0.000 |"})
    CHECK_MESSAGE(md.find(s) != std::string::npos, std::string(s));
  // The authors'-code and medium rows stay out of Tables 4 and 5: one row each, in their own tables.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = md.find(what); at != std::string::npos; at = md.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("A = K / (sum K + 1e-06)") == 1);
  CHECK(count("x^4, R_init 2, medium") == 1);
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("groups").size() == groups.size());
  CHECK(summary.at("claims").size() == claims.size());
  for (const char* fig :
       {"fig_lm_val_ppl.svg", "fig_p_ablation.png", "fig_r_ablation.svg", "fig_r_learned.svg", "fig_vit_accuracy.png"})
    CHECK_MESSAGE(std::filesystem::exists(dir.str() + "/" + fig), std::string(fig));
  // The diverged power has no trained point (its curve stops at the untrained model).
  const report::LinePlot powers = ff_plot(groups, FfFigure::Powers);
  bool found = false;
  for (const report::Series& s : powers.series)
    if (s.label.find("fourier p=1") != std::string::npos) {
      found = true;
      CHECK(s.x.empty());  // only the untrained point, which the LM plots leave out
      CHECK(s.label.find("diverged: 2/2 seeds") != std::string::npos);
    }
  CHECK(found);
}

// The measured full run behind README's tables (tests/study_helpers.h): today's whole grid of
// 100 runs; the quick mode's 8 runs; and the sweep that chose log R's lr.
TEST_CASE("fourierformer study: the committed full and quick runs report again to their committed summaries") {
  CHECK(hm::test::check_committed_full_run("fourierformer", "fourierformer", 100).done == 100);
  CHECK(hm::test::check_committed_full_run("fourierformer", "fourierformer", 8, "quick_run").done == 8);
  // The lr sweep of log R on seed 1 (r_lrs 0.003, 0.01, 0.03, 0.1): the first three ran.
  CHECK(hm::test::check_committed_full_run("fourierformer", "fourierformer", 4, "r_lr_sweep").done == 3);
}

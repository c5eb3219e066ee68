// `harmonic study chronos` (tools/studies/chronos/): head names and sizes, the grids of each
// mode, run configs through JSON, one tiny run end to end (result keys, saved model, figures'
// data), and the report's aggregates, paper rows, claims and files on hand-made records.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "harmonic/tools/studies/chronos/data_sizes.h"
#include "harmonic/tools/studies/chronos/figures.h"
#include "harmonic/tools/studies/chronos/plan.h"
#include "harmonic/tools/studies/chronos/report.h"
#include "harmonic/tools/studies/chronos/run.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"
#include "tests/helpers.h"
#include "tests/study_helpers.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

// A run's result with known metrics (the fields report.h reads).
RunRecord record(const ChronosRunSpec& r, double mase, double wql, double smooth) {
  Json final_metrics = {{"test_mase", mase},         {"test_wql", wql},
                        {"test_smoothness", smooth}, {"test_mase_period", 2 * mase},
                        {"test_wql_period", wql},    {"test_loss", 5.0}};
  Json pmf = {{"value", {-0.1, 0.0, 0.1}}, {"density", {1.0, 3.0, 1.0}}, {"truth", 0.02}};
  Json fan = {{"history", {1.0, 2.0, 3.0}}, {"truth", {4.0, 5.0}}, {"median", {4.1, 4.9}}, {"q10", {3.5, 4.0}},
              {"q90", {4.5, 6.0}},          {"season", 1},         {"kernel", "rbf(1)"}};
  Json result = {{"params", 1000 * r.size.d_model},
                 {"steps", 10},
                 {"train_seconds", 2.0},
                 {"tokens_per_second", 500.0},
                 {"curve", Json::array()},
                 {"final", final_metrics},
                 {"example_pmfs", {pmf, pmf}},
                 {"example_forecast", fan},
                 {"model_dir", ""}};
  return {chronos_run_label(r), chronos_run_json(r), result, 3.0};
}

}  // namespace

TEST_CASE("chronos study: head names and sizes round-trip, bad ones are named") {
  for (const char* name :
       {"linear", "fourier-64", "fourier-550-noreg", "fourier-550-uniform", "fourier-8-noreg-uniform"})
    CHECK(ChronosHeadSpec::parse(name).name() == name);
  const ChronosHeadSpec uniform = ChronosHeadSpec::parse("fourier-550-uniform");
  CHECK(uniform.frequencies == 550);
  CHECK(uniform.regularized);
  CHECK_FALSE(uniform.mixed_binning);
  CHECK(uniform.ablation());
  CHECK(uniform.task_keys().at("binning") == "uniform");
  CHECK(ChronosHeadSpec::parse("fourier-550-noreg").task_keys().at("fourier_gamma") == 0.0);
  CHECK(ChronosHeadSpec::parse("fourier-128").task_keys().at("fourier_gamma") == 1e-6);
  CHECK(ChronosHeadSpec::parse("linear").task_keys().at("binning") == "uniform");
  CHECK(throws_with([] { ChronosHeadSpec::parse("fourier-x"); }, {"[study chronos]", "fourier-x"}));
  CHECK(throws_with([] { ChronosHeadSpec::parse("fourier-0"); }, {"fourier-0"}));
  CHECK(throws_with([] { ChronosHeadSpec::parse("gmm"); }, {"'gmm'"}));
  CHECK(ChronosSize::parse("mini").d_model == 384);
  CHECK(throws_with([] { ChronosSize::parse("huge"); }, {"unknown size 'huge'", "d32"}));
}

TEST_CASE("chronos study: quick, full and paper-scale grids") {
  const std::vector<ChronosRunSpec> quick = chronos_study_grid({.common = {.quick = true}});
  REQUIRE(quick.size() == 6);  // linear and fourier-64 on seeds 1-3, seed-major
  CHECK(chronos_run_label(quick[0]) == "linear d32 seed=1");
  CHECK(chronos_run_label(quick[1]) == "fourier-64 d32 seed=1");
  CHECK(chronos_run_label(quick[5]) == "fourier-64 d32 seed=3");
  CHECK(quick[1].task_config.at("binning") == "mixed");
  CHECK(quick[0].task_config.at("context_length") == 32);
  CHECK(quick[0].task_config.at("d_model") == 32);
  CHECK(quick[2].task_config.at("seed") == 2);

  // Figure 18 is left out of quick mode unless asked for, on the paper's four seeds.
  CHECK(chronos_study_grid({.common = {.quick = true}, .data_fractions = {0.1}}).size() == 6 + 4 * 2);
  const std::vector<ChronosRunSpec> full = chronos_study_grid({});
  // Table 8's rows at 1024 tokens (N < 512) x 3 seeds, then d32 and d128 x {linear, fourier-256}
  // x 3 seeds, then 1% and 10% of the series x {linear, fourier-256} x 4 seeds.
  CHECK(full.size() == 6 * 3 + 2 * 2 * 3 + 2 * 2 * 4);
  CHECK(chronos_run_label(full[30]) == "linear d64 data=0.01 seed=1");
  CHECK(chronos_run_label(full[45]) == "fourier-256 d64 data=0.1 seed=4");
  CHECK(full[30].task_config.at("series") == 328);  // 1% of 32768
  CHECK(full[30].task_config.at("mixup_series") == 82);
  CHECK(full[30].task_config.at("held_out_series") == full[0].task_config.at("held_out_series"));
  CHECK(chronos_run_json(full[45]).at("data_fraction") == 0.1);
  CHECK_FALSE(chronos_run_json(full[0]).contains("data_fraction"));  // recorded configs stay as they were
  CHECK(throws_with([] { chronos_study_grid({.data_fractions = {1.5}}); }, {"data fractions must be in (0, 1]"}));
  CHECK(chronos_run_label(full[4]) == "fourier-256-noreg d64 seed=1");
  CHECK(chronos_run_label(full[5]) == "fourier-256-uniform d64 seed=1");
  CHECK(chronos_run_label(full[18]) == "linear d32 seed=1");
  CHECK(chronos_run_label(full[19]) == "fourier-256 d32 seed=1");
  CHECK(full[0].task_config.at("n_tokens") == 1024);
  CHECK(full[0].task_config.at("d_model") == 64);
  CHECK(full[29].task_config.at("d_model") == 128);
  for (const ChronosRunSpec& r : full) {
    const ChronosRunSpec back = chronos_run_from_json(chronos_run_json(r));
    CHECK(chronos_run_label(back) == chronos_run_label(r));
    CHECK(back.task_config == r.task_config);
    CHECK(back.data_fraction == r.data_fraction);
    CHECK(chronos_run_cost(r) > 0);
  }
  // The paper's configuration (a GPU's job): t5-efficient-mini, context 512, horizon 64.
  const std::vector<ChronosRunSpec> paper = chronos_study_grid(
      {.common = {.seeds = {1}, .device = "cuda", .paper_scale = true}, .heads = {"linear", "fourier-550"}});
  REQUIRE(paper.size() == 2);
  // Its default heads are Table 8's (N up to 550 of the paper's 4096 tokens).
  const std::vector<ChronosRunSpec> paper_rows = chronos_study_grid({.common = {.seeds = {1}, .paper_scale = true}});
  REQUIRE(paper_rows.size() == 7);
  CHECK(chronos_run_label(paper_rows[6]) == "fourier-550-uniform mini seed=1");
  CHECK_FALSE(paper_rows[6].task_config.contains("n_tokens"));  // the task's 4096
  CHECK(paper[1].task_config.at("d_model") == 384);
  CHECK(paper[1].task_config.at("context_length") == 512);
  CHECK(paper[1].task_config.at("horizon") == 64);
  CHECK(paper[1].task_config.at("batch_size") == 256);
  CHECK(paper[1].device == "cuda");
  // Its parameter count is the paper's ~20M (T5 + the 4096-token embedding and head).
  Json config = train::default_config(train::find_task(train::kChronosTask));
  train::merge_config(config, paper[0].task_config, "test");
  const int64_t params = train::chronos_parameter_count(config);
  MESSAGE("paper-scale Chronos: " << params << " parameters");
  CHECK(params > 18'000'000);
  CHECK(params < 24'000'000);
  CHECK(throws_with([] { chronos_run_from_json(Json{{"head", "linear"}}); }, {"malformed run config"}));
  CHECK(throws_with([] { chronos_study_grid({.heads = {"fourier-x"}}); }, {"fourier-x"}));
}

TEST_CASE("chronos study: crop_pmf keeps the mass and divides by the bin widths") {
  std::vector<double> centres, pmf(100, 0.0);
  for (int i = 0; i < 100; ++i) centres.push_back(i < 50 ? 0.1 * i : 5.0 + 0.05 * (i - 50));  // widths 0.1 then 0.05
  pmf[40] = 0.5, pmf[41] = 0.5;
  const Json c = crop_pmf(pmf, centres);
  const auto value = c.at("value").get<std::vector<double>>(), density = c.at("density").get<std::vector<double>>();
  REQUIRE(value.size() == density.size());
  CHECK(value.front() < 4.0);  // widened on both sides
  CHECK(value.back() > 4.1);
  double mass = 0;
  for (size_t i = 0; i < value.size(); ++i)
    if (std::abs(value[i] - 4.0) < 1e-9 || std::abs(value[i] - 4.1) < 1e-9) mass += density[i] * 0.1;
  CHECK(mass == doctest::Approx(1.0));
  // A flat floor over many bins (a linear head's) is cut to 600 bins around the median.
  std::vector<double> wide(4000, 1.0), wide_centres;
  for (int i = 0; i < 4000; ++i) wide_centres.push_back(0.01 * i);
  CHECK(crop_pmf(wide, wide_centres).at("value").size() == 601);
}

TEST_CASE("chronos study: a tiny run trains, records its examples and saves its model") {
  ScratchDir dir;
  ChronosRunSpec run = chronos_study_grid({.common = {.quick = true, .seeds = {1}}, .heads = {"fourier-8"}}).front();
  run.task_config.merge_patch(
      Json{{"series", 32}, {"mixup_series", 8}, {"held_out_series", 3}, {"trainer", {{"steps", 5}}}});
  const Json r = run_chronos(run, dir.str());
  CHECK(r.at("steps") == 5);
  CHECK(r.at("tokens_per_second").get<double>() > 0);
  for (const char* k : {"test_mase", "test_wql", "test_smoothness", "test_mase_period"})
    CHECK_MESSAGE(std::isfinite(r.at("final").at(k).get<double>()), k);
  REQUIRE(r.at("example_pmfs").size() == 2);
  CHECK(r.at("example_pmfs")[0].at("value").size() == r.at("example_pmfs")[0].at("density").size());
  const Json& fan = r.at("example_forecast");
  CHECK(fan.at("history").size() == 32);
  CHECK(fan.at("median").size() == 8);
  CHECK(fan.at("q90").size() == 8);
  const std::string saved = dir.str() + "/" + r.at("model_dir").get<std::string>();
  CHECK(r.at("model_dir") == "models/fourier-8_d32_seed_1");
  CHECK(train::load_chronos(saved).model->fourier_head != nullptr);
}

TEST_CASE("chronos study: report on known runs") {
  ChronosStudyPlan plan{.common = {.seeds = {1, 2}},
                        .heads = {"linear", "fourier-64", "fourier-550", "fourier-550-uniform", "fourier-550-noreg"},
                        .sizes = {"d32"},
                        .sweep_seeds = {1},
                        .data_fractions = {0.1},
                        .data_seeds = {1, 2}};
  std::vector<RunRecord> records;
  for (const ChronosRunSpec& r : chronos_study_grid(plan)) {
    const double seed = static_cast<double>(r.seed);
    const std::string h = r.head.name();
    if (r.data_fraction != 1.0)
      records.push_back(record(r, h == "linear" ? 1.3 : 1.25, 1.0, 0.05));
    else if (r.size.name == "d32")
      records.push_back(record(r, h == "linear" ? 1.2 : 1.1, 1.0, h == "linear" ? 0.1 : 0.01));
    else if (h == "linear")
      records.push_back(record(r, 1.0 + 0.1 * seed, 0.9, 0.1));
    else if (h == "fourier-64")
      records.push_back(record(r, 1.05, 0.95, 0.002));
    else if (h == "fourier-550")
      records.push_back(record(r, 0.8 + 0.1 * seed, 0.8, 0.02));  // 0.9, 1.0
    else
      records.push_back(record(r, 1.0, 0.85, 0.03));  // the ablations: MASE 1.0 > 0.95 on the mean
  }
  const std::vector<ChronosGroup> groups = aggregate_chronos_runs(chronos_runs_of(records));
  // d32 linear, fourier-550; d64 linear, 64, 550, 550-noreg, 550-uniform; then 10% of the data
  REQUIRE(groups.size() == 9);
  CHECK(chronos_full_data_groups(groups).size() == 7);
  CHECK(groups[8].data_fraction == 0.1);
  const std::vector<ChronosDataPoint> data = chronos_data_points(groups);
  REQUIRE(data.size() == 2);  // 10% of the series, then all of them (the rows' d64 pair)
  CHECK(data[0].series == 4096);
  CHECK(data[1].fraction == 1.0);
  CHECK(data[1].fourier->head.name() == "fourier-550");
  CHECK(groups[0].size.name == "d32");
  CHECK(groups[2].head.name() == "linear");
  CHECK(groups[4].head.name() == "fourier-550");
  CHECK(groups[5].head.ablation());
  CHECK(chronos_main_size_of(groups) == "d64");
  CHECK(chronos_main_frequencies(groups, "d64") == 550);
  CHECK(groups[2].mase.mean == doctest::Approx(1.15));
  CHECK(groups[4].mase.mean == doctest::Approx(0.95));
  CHECK(paper_chronos_row("fourier-550")->mase == 0.852);
  CHECK_FALSE(paper_chronos_row("fourier-12").has_value());

  const auto claims = chronos_claims(groups);
  auto find = [&](const std::string& start) -> const report::ClaimResult* {
    for (const auto& c : claims)
      if (c.claim.rfind(start, 0) == 0) return &c;
    return nullptr;
  };
  const report::ClaimResult* smoother = find("fourier-550 pmfs smoother than linear (5.0x");
  REQUIRE(smoother);
  CHECK(smoother->holds);
  CHECK(smoother->seeds_holding == 2);
  const report::ClaimResult* mase = find("fourier-550 MASE < linear");
  REQUIRE(mase);
  CHECK(mase->holds);  // 0.95 < 1.15
  REQUIRE(find("fourier-550 MASE < fourier-550-uniform (mixed binning helps"));
  CHECK(find("fourier-550 MASE < fourier-550-uniform")->holds);
  CHECK(find("fourier-550 MASE < fourier-550-uniform")->seeds_holding == 1);  // seed 2: 1.0 = 1.0
  REQUIRE(find("fourier-550 MASE < fourier-550-noreg"));
  const report::ClaimResult* naive = find("fourier-550 beats seasonal naive");
  REQUIRE(naive);
  CHECK(naive->holds);  // 0.95 < 1 on the mean, seed 1 only
  CHECK(naive->seeds_holding == 1);
  CHECK_FALSE(find("linear beats seasonal naive")->holds);
  CHECK(find("fourier-64 smoother than fourier-550")->holds);
  const report::ClaimResult* size = find("fourier-550 MASE < linear at d32");
  REQUIRE(size);
  CHECK(size->holds);  // 1.1 < 1.2
  const report::ClaimResult* less_data = find("fourier-550 MASE < linear at data=0.1 (4096 series; Figure 18)");
  REQUIRE(less_data);
  CHECK(less_data->seeds_holding == 2);  // 1.25 < 1.3

  ScratchDir dir;
  StudyInfo info{.name = "chronos", .quick = false, .jobs = 2, .wall_seconds = 10};
  const StudyReport rep = write_chronos_study(dir.str(), chronos_runs_of(records), info);
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("| linear | 2 | 1.150 ± 0.050 | 0.883 | 0.900 ± 0.000 | 0.750 | 0.1000 ± 0.0000 | 0.1689 ± 0.1087") !=
        std::string::npos);
  CHECK(md.find("| fourier-550-uniform | 2 | 1.000 ± 0.000 | 0.873 |") != std::string::npos);
  CHECK(md.find("## Figure 19") != std::string::npos);
  CHECK(md.find("(size d64, 1024 tokens)") != std::string::npos);  // the full mode's bins
  CHECK(md.find("ablation rows") == std::string::npos);            // Table 8's own N: no note
  for (const char* f : {"fig17_pmfs_series1.svg", "forecast_fan_linear.png", "forecast_fan_fourier-550.svg",
                        "table8_smoothness_vs_frequencies.svg", "fig19_mase_vs_params.png"})
    CHECK_MESSAGE(std::filesystem::exists(dir.str() + "/" + f), f);
  CHECK_FALSE(rep.headline.empty());
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("main_size") == "d64");
  CHECK(summary.at("groups").size() == 7);
  CHECK(summary.at("data_sizes").size() == 2);
  CHECK(md.find("| data=0.1 | 4096 | 2 | 1.300 ± 0.000 | 1.250 ± 0.000 |") != std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig18_mase_vs_data_size.png"));
  // Without Figure 18's runs the section says they have not run.
  CHECK(chronos_data_markdown(chronos_full_data_groups(groups)).find("Not run yet") != std::string::npos);
}

TEST_CASE("chronos study: a quick study with Figure 18's smaller training set trains and reports") {
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .seeds = {1}, .out = dir.str()};
  const StudySpec& spec = find_study("chronos");
  args.sets = {"task=" + spec.smoke.at("task").dump(), "data_fractions=[0.5]", "data_seeds=[1]"};
  const StudyOutcome out = run_study(spec, args, nullptr);
  CHECK(out.done == 4);  // linear and fourier-64 on all the series and on half of them
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("groups").size() == 2);
  REQUIRE(summary.at("data_sizes").size() == 2);
  CHECK(summary.at("data_sizes")[0].at("series") == 12 + 4);  // half of the smoke config's 24 + 8
  CHECK(summary.at("data_sizes")[1].at("series") == 24 + 8);
  CHECK(std::filesystem::exists(dir.str() + "/fig18_mase_vs_data_size.svg"));
}

// The measured full run behind README's tables (tests/study_helpers.h).
TEST_CASE("chronos study: the committed full run reports again to its committed summary") {
  CHECK(check_committed_full_run("chronos", "chronos", 46).done == 46);  // complete
}

// The quick mode's run behind README's quick-mode table and its two figures.
TEST_CASE("chronos study: the committed quick run reports again to its committed summary") {
  CHECK(check_committed_full_run("chronos", "chronos", 6, "quick_run").done == 6);
}

// top50_run: the d64 linear and Fourier-256 rows under the released pipeline's top-50 sampling
// (eval_top_k), whose summary says so.
TEST_CASE("chronos study: the committed top-50 run reports again to its committed summary") {
  CHECK(check_committed_full_run("chronos", "chronos", 46, "top50_run").done == 6);
}

// `harmonic study audio-bpm`: the grids of each mode, run configs through JSON, and the
// report's aggregates, claims and files on runs with made-up numbers, and a tiny study run end
// to end through the driver.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/helpers.h"
#include "tests/study_helpers.h"
#include "harmonic/tools/studies/audio_bpm/figures.h"
#include "harmonic/tools/studies/audio_bpm/plan.h"
#include "harmonic/tools/studies/audio_bpm/report.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/studies/driver/study.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

RunRecord record(const HeadRunSpec& r, double f1, double smooth, double accuracy) {
  std::vector<double> pmf(32, 0.0);
  pmf[10] = 0.5, pmf[11] = 0.3, pmf[12] = 0.2;
  Json final_metrics = {{"loss", 2.0},
                        {"accuracy", accuracy},
                        {"macro_f1", f1},
                        {"within_one_accuracy", 0.5},
                        {"mean_abs_bin_error", 2.0},
                        {"predicted_classes", 20},
                        {"smoothness", smooth},
                        {"example_pmfs", {pmf, pmf}},
                        {"example_labels", {11, 3}},
                        {"example_bpm", {106, 66}}};
  Json result = {{"params", 4321},
                 {"steps", 800},
                 {"train_seconds", 60.0},
                 {"clips_per_second", 400.0},
                 {"curve", Json::array({{{"step", 800}, {"macro_f1", f1}}})},
                 {"final", final_metrics}};
  return {bpm_run_label(r), head_run_json(r), result, 61.0};
}

}  // namespace

TEST_CASE("audio-bpm study: quick and full grids") {
  const std::vector<HeadRunSpec> quick = bpm_study_grid({.common = {.quick = true}});
  REQUIRE(quick.size() == 9);  // linear, fourier-1, fourier-2 on seeds 1-3, seed-major
  CHECK(bpm_run_label(quick[0]) == "linear seed=1");
  CHECK(bpm_run_label(quick[1]) == "fourier-1 seed=1");
  CHECK(bpm_run_label(quick[2]) == "fourier-2 seed=1");
  CHECK(bpm_run_label(quick[8]) == "fourier-2 seed=3");
  CHECK(quick[2].task_config.at("fourier_frequencies") == 2);
  CHECK(quick[2].task_config.at("head") == "fourier");
  CHECK(quick[0].task_config.at("head") == "linear");
  CHECK(quick[4].task_config.at("seed") == 2);
  CHECK_FALSE(quick[0].task_config.contains("train_clips"));  // the task's defaults
  const std::vector<HeadRunSpec> full = bpm_study_grid({});
  CHECK(full.size() == 15);
  CHECK(full[0].task_config.at("trainer").at("steps") == 6000);
  CHECK(full[0].task_config.at("train_clips") == 32000);
  CHECK(bpm_run_cost(full[0]) > bpm_run_cost(quick[0]));
  // The GPU configuration: AST's shape over the full mode's seeds, whatever the mode.
  const std::vector<HeadRunSpec> gpu =
      bpm_study_grid({.common = {.quick = true, .device = "cuda", .paper_scale = true}});
  CHECK(gpu.size() == 15);
  CHECK(gpu[0].device == "cuda");
  CHECK(gpu[0].task_config.at("dim") == 768);
  CHECK(gpu[0].task_config.at("depth") == 12);
  CHECK(gpu[0].task_config.at("bands") == 128);
  CHECK(gpu[0].task_config.at("trainer").at("steps") == 20000);
  CHECK(bpm_run_cost(gpu[0]) > bpm_run_cost(full[0]));
  // Options: other frequencies, seeds, task keys merged into every run.
  const std::vector<HeadRunSpec> custom =
      bpm_study_grid({.common = {.quick = true, .seeds = {7}}, .frequencies = {4, 4}, .task = {{"dim", 32}}});
  REQUIRE(custom.size() == 2);
  CHECK(bpm_run_label(custom[1]) == "fourier-4 seed=7");
  CHECK(custom[1].task_config.at("dim") == 32);
  for (const HeadRunSpec& r : full) {
    const HeadRunSpec back = head_run_from_json(head_run_json(r), kBpmStudy);
    CHECK(bpm_run_label(back) == bpm_run_label(r));
    CHECK(back.task_config == r.task_config);
  }
  CHECK(HeadChoice::parse("fourier-2", kBpmStudy).frequencies == 2);
  CHECK(throws_with([] { HeadChoice::parse("fourier-", kBpmStudy); }, {"fourier-"}));
  CHECK(throws_with([] { HeadChoice::parse("gmm", kBpmStudy); }, {"gmm"}));
  CHECK(throws_with([] { bpm_study_grid({.frequencies = {0}}); }, {"study audio-bpm", "0"}));
  CHECK(throws_with([] { head_run_from_json(Json{{"head", "linear"}}, kBpmStudy); }, {"study audio-bpm", "malformed run config"}));
}

TEST_CASE("audio-bpm study: report on made-up runs, claims seed by seed") {
  std::vector<RunRecord> records;
  for (const HeadRunSpec& r : bpm_study_grid({.common = {.quick = true}})) {
    const double seed = static_cast<double>(r.seed);
    if (!r.head.fourier())
      records.push_back(record(r, 0.10 + 0.01 * seed, 0.08, 0.2));  // 0.11 0.12 0.13
    else if (r.head.frequencies == 1)
      records.push_back(record(r, 0.12, 0.02, 0.15));  // above on seeds 1, 2
    else
      records.push_back(record(r, 0.20 + 0.01 * seed, 0.03, 0.25));  // above on every seed
  }
  const std::vector<BpmGroup> groups = aggregate_bpm_runs(bpm_runs_of(records));
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].head.name() == "linear");
  CHECK(groups[2].head.name() == "fourier-2");
  CHECK(groups[0].macro_f1.mean == doctest::Approx(0.12));
  CHECK(groups[0].macro_f1.std == doctest::Approx(std::sqrt(2.0 / 3) * 0.01));
  CHECK(groups[2].macro_f1.mean == doctest::Approx(0.22));
  CHECK(groups[2].example_labels == std::vector<int64_t>{11, 3});
  const auto claims = bpm_claims(groups);
  REQUIRE(claims.size() == 4);  // F1 for fourier-1 and -2, then smoothness for both
  CHECK(claims[0].claim.find("fourier-1 macro F1 > linear") != std::string::npos);
  CHECK_FALSE(claims[0].holds);         // 0.12 vs 0.12 on the means
  CHECK(claims[0].seeds_holding == 1);  // seed 1 only (0.12 > 0.11)
  CHECK(claims[1].holds);
  CHECK(claims[1].seeds_holding == 3);
  CHECK(claims[2].holds);  // 0.02 < 0.08
  CHECK(claims[3].holds);

  ScratchDir dir;
  StudyInfo info{.name = "audio-bpm", .quick = true, .jobs = 2, .wall_seconds = 300};
  const StudyReport rep = write_bpm_study(dir.str(), bpm_runs_of(records), info);
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("| linear | 3 | 20.0 ± 0.0 | 0.120 ± 0.008 |  |") != std::string::npos);
  CHECK(md.find("| fourier-2 | 3 | 25.0 ± 0.0 | 0.220 ± 0.008 | +83% |") != std::string::npos);
  CHECK(md.find("3/3") != std::string::npos);
  CHECK(md.find("| 20.0 ± 0.0 | 4321 |") != std::string::npos);  // classes predicted, params
  const std::string js = read_text(dir.str() + "/summary.json");
  CHECK(js.find("\"macro_f1_change_vs_linear\"") != std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig7_pmfs_clip1.svg"));
  CHECK(std::filesystem::exists(dir.str() + "/fig7_pmfs_clip2.png"));
  CHECK(std::filesystem::exists(dir.str() + "/macro_f1_per_head.svg"));
  CHECK_FALSE(rep.headline.empty());
  // The pmf figure: one curve per head and the true bin at 50 + 5 x 11 = 105 BPM.
  const report::LinePlot fig = bpm_pmf_plot(groups, 0);
  REQUIRE(fig.series.size() == 4);
  CHECK(fig.series[3].x == std::vector<double>{105.0, 105.0});
  CHECK(fig.title.find("106 BPM") != std::string::npos);
  // A record without its final evaluation is refused, naming the run.
  records[0].result["final"] = nullptr;
  CHECK(throws_with([&] { bpm_runs_of(records); }, {"linear seed=1", "no final evaluation"}));
  // The study is registered with its options.
  const StudySpec& spec = find_study("audio-bpm");
  CHECK(spec.options.contains("frequencies"));
  CHECK(spec.grid(StudyContext{.quick = true, .options = spec.options}).size() == 9);
}

TEST_CASE("audio-bpm study: a tiny study trains every head and reports through the driver") {
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .seeds = {1}, .out = dir.str()};
  args.sets = {R"(task={"train_clips":96,"test_clips":32,"seconds":1.0,"dim":16,"depth":1,"heads":2,)"
               R"("trainer":{"steps":6,"warmup_steps":1}})"};
  const StudyOutcome out = run_study(find_study("audio-bpm"), args, nullptr);
  CHECK(out.done == 3);
  CHECK(out.total == 3);
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  REQUIRE(summary.at("heads").size() == 3);
  for (const Json& h : summary.at("heads")) {
    CAPTURE(h.at("head").get<std::string>());
    const double f1 = h.at("macro_f1").at("mean").get<double>();
    CHECK(f1 >= 0);
    CHECK(f1 <= 1);
    CHECK(h.at("smoothness").at("mean").get<double>() > 0);
    CHECK(h.at("task_config").at("train_clips") == 96);
  }
  CHECK(summary.at("claims").size() == 4);
  CHECK(std::filesystem::exists(dir.str() + "/fig7_pmfs_clip4.svg"));
  const std::vector<RunRecord> records = read_results(dir.str() + "/results.jsonl");
  REQUIRE(records.size() == 3);
  CHECK(records[0].result.at("steps") == 6);
  CHECK(records[2].result.at("final").at("example_pmfs").size() == 4);
}

// The measured full run behind README's tables (tests/study_helpers.h).
TEST_CASE("audio-bpm study: the committed full run reports again to its committed summary") {
  const studies::StudyOutcome out = check_committed_full_run("audio-bpm", "audio_bpm", 15);
  CHECK(out.done == 15);  // complete
}

// The quick mode's run behind README's quick-mode table.
TEST_CASE("audio-bpm study: the committed quick run reports again to its committed summary") {
  CHECK(check_committed_full_run("audio-bpm", "audio_bpm", 9, "quick_run").done == 9);
}

// `harmonic study decision-transformer --set game=NAME` on the arcade games besides Seaquest
// (tools/studies/decision_transformer/: plan.h's game, table2.h, game_report.h): the grid per
// game (Seaquest's unchanged), Table 2's columns on runs with known numbers, and the quick
// study on each game through the driver.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>

#include "harmonic/tools/studies/decision_transformer/game_report.h"
#include "harmonic/tools/studies/decision_transformer/plan.h"
#include "harmonic/tools/studies/decision_transformer/table2.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

RunRecord dt_games_record(const HeadRunSpec& r, double best, double smooth) {
  Json final_metrics = {{"normalized_return_mean", best - 1},
                        {"return_mean", 10 * best},
                        {"val_smoothness", smooth},
                        {"val_accuracy", 0.5},
                        {"val_loss", 1.5},
                        {"example_pmfs", {std::vector<double>(18, 1.0 / 18)}},
                        {"example_actions", {3}}};
  Json result = {{"params", 1234},
                 {"random_return", 5.0},
                 {"expert_return", 500.0},
                 {"curve", {{{"step", 10}, {"normalized_return_mean", best}}}},
                 {"best", {{"step", 10}, {"normalized_return_mean", best}}},
                 {"final", final_metrics}};
  return {dt_run_label(r), head_run_json(r), result, 3.0};
}

}  // namespace

TEST_CASE("decision-transformer study games: the grid per game, Seaquest's as before") {
  const std::vector<HeadRunSpec> seaquest = dt_study_grid({});
  for (const HeadRunSpec& r : seaquest) CHECK(!r.task_config.contains("game"));  // configs as committed
  CHECK(seaquest.size() == 54);
  const std::vector<HeadRunSpec> full = dt_study_grid({.game = "bankheist"});
  // Linear, Fourier-8 and Fourier-14 on seeds 1-4, the other even N from 2 to 32 on seeds 1-2;
  // no model or data ablations.
  REQUIRE(full.size() == 4 * 3 + 14 * 2);
  std::map<std::string, const HeadRunSpec*> by_label;
  for (const HeadRunSpec& r : full) {
    by_label[dt_run_label(r)] = &r;
    CHECK(r.task_config.at("game") == "bankheist");
    CHECK(r.ablation.empty());
    CHECK(r.task_config.at("trainer").at("steps") == 3000);
  }
  CHECK(dt_run_label(full[0]) == "linear seed=1");
  CHECK(dt_run_label(full[1]) == "fourier-8 seed=1");
  CHECK(dt_run_label(full[2]) == "fourier-14 seed=1");
  for (const char* label : {"fourier-14 seed=4", "fourier-8 seed=3", "fourier-2 seed=2", "fourier-32 seed=1"})
    CHECK_MESSAGE(by_label.count(label) == 1, label);
  CHECK(by_label.count("fourier-2 seed=3") == 0);
  CHECK(!by_label.at("linear seed=2")->task_config.contains("fourier_frequencies"));
  // Quick: the same three heads as Seaquest's quick mode, on the game.
  const std::vector<HeadRunSpec> quick = dt_study_grid({.common = {.quick = true}, .game = "gravitar"});
  REQUIRE(quick.size() == 3);
  CHECK(dt_run_label(quick[2]) == "fourier-2 seed=1");
  CHECK(quick[1].task_config.at("game") == "gravitar");
  // The ablations only when asked for.
  CHECK(dt_study_grid({.parts = {"main", "model"}, .game = "doubledunk"}).size() == 40 + 2 * 2 * 2);
  CHECK(throws_with([] { dt_study_grid({.game = "pong"}); },
                    {"study decision-transformer", "unknown game 'pong'", "seaquest, bankheist"}));
  CHECK(throws_with([] { dt_study_grid({.task = {{"game", "gravitar"}}, .game = "bankheist"}); },
                    {"option 'game' ('bankheist')", "\"gravitar\""}));
  CHECK(dt_game_of(full[0].task_config) == "bankheist");
  CHECK(dt_game_of(seaquest[0].task_config) == "seaquest");
}

TEST_CASE("decision-transformer study games: Table 2's column and Figure 16 on known runs") {
  std::vector<RunRecord> records;
  const DtStudyPlan plan{.common = {.seeds = {1, 2}}, .frequencies = {2, 14, 20}, .sweep_seeds = {1}, .game = "gravitar"};
  for (const HeadRunSpec& r : dt_study_grid(plan)) {
    const double seed = static_cast<double>(r.seed);
    if (!r.head.fourier()) records.push_back(dt_games_record(r, 2.0 + seed, 0.5));
    else if (r.head.frequencies == 8) records.push_back(dt_games_record(r, 3.0 + 2 * seed, 0.2));  // 5, 7 vs 3, 4
    else if (r.head.frequencies == 14) records.push_back(dt_games_record(r, 3.0, 0.6));  // below, rougher
    else records.push_back(dt_games_record(r, r.head.frequencies == 20 ? 9.0 : 1.0, 0.01 * r.head.frequencies));
  }
  const std::vector<DtGroup> groups = aggregate_dt_runs(dt_runs_of(records));
  const DtTable2Column col = dt_table2_column(groups, "gravitar", 8);
  CHECK(col.paper.atari_name == "Gravitar");
  CHECK(col.paper.linear.mean == doctest::Approx(1.32));
  CHECK(col.paper.fourier.mean == doctest::Approx(4.98));
  REQUIRE(col.linear);
  // Fourier-8 and Fourier-14 on every seed, then the best on the mean (Fourier-20, seed 1).
  REQUIRE(col.fourier.size() == 3);
  CHECK(col.fourier[0].head.name() == "fourier-8");
  CHECK(col.fourier[1].head.name() == "fourier-14");
  CHECK(col.fourier[2].head.name() == "fourier-20");
  REQUIRE(col.claims.size() == 5);  // three returns above linear, two smoother than linear
  CHECK(col.claims[0].holds);
  CHECK(col.claims[0].seeds_holding == 2);
  CHECK(!col.claims[1].holds);  // Fourier-14 3.0 against linear 3.5
  CHECK(col.claims[1].seeds_holding == 0);
  CHECK(col.claims[2].claim.find("fourier-20 (best on the mean)") != std::string::npos);
  CHECK(col.claims[3].holds);    // Fourier-8 smoother, 0.2 < 0.5
  CHECK(!col.claims[4].holds);   // Fourier-14 rougher, 0.6

  ScratchDir dir;
  StudyInfo info{.name = "decision-transformer", .quick = false, .jobs = 2, .wall_seconds = 10};
  const StudyReport rep = write_dt_game_study(dir.str(), dt_runs_of(records), info, 8, "gravitar");
  CHECK_FALSE(rep.headline.empty());
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("# Decision Transformer study on Gravitar (full mode)") != std::string::npos);
  CHECK(md.find("| linear head | 1.32 ± 0.17 | linear | 2 | 3.50 ± 0.50 | - |") != std::string::npos);
  CHECK(md.find("| Fourier head | 4.98 ± 0.93 | fourier-8 | 2 | 6.00 ± 1.00 | yes (2/2 seeds above linear) |") !=
        std::string::npos);
  // A claim that does not hold says so with its numbers.
  CHECK(md.find("| Fourier head | 4.98 ± 0.93 | fourier-14 | 2 | 3.00 ± 0.00 | **no** (0/2 seeds above linear) | "
                "0.6000 ± 0.0000 | **no** (0/2 seeds) |") != std::string::npos);
  CHECK(md.find("on the mean, 2 of 4 Fourier heads beat linear's best-epoch return of 3.50 (N = 8, 20), and 3 of 4 "
                "have smoother pmfs") != std::string::npos);
  CHECK(md.find("fourier-2 smoother than fourier-20 (Figure 16, Gravitar)") != std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig16_gravitar_return_vs_frequencies.svg"));
  CHECK(std::filesystem::exists(dir.str() + "/fig16_gravitar_smoothness_vs_frequencies.png"));
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("game") == "gravitar");
  CHECK(summary.at("table2").at("linear").at("best_normalized_return").at("paper").at("mean") == 1.32);
  CHECK(!summary.at("heads")[0].at("best_normalized_return").contains("paper"));  // not Seaquest's values

  // The four games side by side: a game without a study says so.
  const std::string table = dt_table2_markdown({col});
  CHECK(table.find("| row | BankHeist | DoubleDunk | Gravitar | Seaquest |") != std::string::npos);
  CHECK(table.find("| linear head, paper | -0.09 ± 0.05 | -72.72 ± 33.08 | 1.32 ± 0.17 | 2.53 ± 0.63 |") !=
        std::string::npos);
  CHECK(table.find("| linear head, ours | not yet run | not yet run | 3.50 ± 0.50 (2 seeds) | not yet run |") !=
        std::string::npos);
  CHECK(table.find("fourier-8 6.00 ± 1.00, yes (2/2 seeds above linear)") != std::string::npos);
  CHECK(throws_with([] { dt_paper_column("pong"); }, {"no game 'pong'", "bankheist"}));
}

namespace {

// The quick study of one game through the driver at the study's smoke size (the same as
// Seaquest's driver test: a 3000-step data set, a one-layer model, 3 steps, 200-step games), so
// that it stays seconds under the sanitizers too: the three quick heads, their report and figures.
void dt_games_quick_study(const std::string& game, const std::string& atari) {
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .out = dir.str()};
  const StudySpec& spec = find_study("decision-transformer");
  args.sets = {"game=" + game, "task=" + spec.smoke.at("task").dump()};
  const StudyOutcome out = run_study(spec, args, nullptr);
  CHECK(out.done == 3);
  CHECK(out.total == 3);
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("game") == game);
  CHECK(summary.at("heads").size() == 3);  // linear, fourier-2, fourier-8
  CHECK(summary.at("table2").at("fourier").size() >= 1);
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("# Decision Transformer study on " + atari + " (quick mode)") != std::string::npos);
  CHECK(md.find("## Table 2, " + atari + " column") != std::string::npos);
  CHECK(md.find("## Figure 16, " + atari + " panel") != std::string::npos);
  CHECK(md.find("fourier-8 best-epoch normalised return > linear (" + atari + ", Table 2)") != std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig16_" + game + "_return_vs_frequencies.png"));
  const Json study = Json::parse(read_text(dir.str() + "/study.json"));
  CHECK(study.at("options").at("game") == game);
}

}  // namespace

TEST_CASE("decision-transformer study games: the quick study on BankHeist") { dt_games_quick_study("bankheist", "BankHeist"); }
TEST_CASE("decision-transformer study games: the quick study on DoubleDunk") { dt_games_quick_study("doubledunk", "DoubleDunk"); }
TEST_CASE("decision-transformer study games: the quick study on Gravitar") { dt_games_quick_study("gravitar", "Gravitar"); }

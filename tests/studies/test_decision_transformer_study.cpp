// The arcade-dt task (tools/tasks/arcade_dt.h), its online rollouts (dt_rollout.h) and
// `harmonic study decision-transformer` (tools/studies/decision_transformer/): rollouts played
// side by side equal the same games played one at a time and are reproducible, a tiny task
// trains and evaluates end to end, the grids of each mode, run configs through JSON, and the
// report's aggregates, claims and files on runs with known numbers, and the committed full run's
// report made again from its records.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "harmonic/data/arcade/games.h"
#include "harmonic/tools/studies/decision_transformer/ablations.h"
#include "harmonic/tools/studies/decision_transformer/figures.h"
#include "harmonic/tools/studies/decision_transformer/plan.h"
#include "harmonic/tools/studies/decision_transformer/report.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/tasks/arcade_dt.h"
#include "harmonic/tools/tasks/dt_rollout.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/helpers.h"
#include "tests/study_helpers.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

models::DecisionTransformerConfig tiny_model(const std::string& head) {
  models::DecisionTransformerConfig c;
  c.state_dim = arcade::game_info("seaquest").observation_size, c.num_actions = arcade::kNumActions;
  c.context_length = 4, c.max_timestep = 60, c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.dropout = 0.1;
  c.head = head, c.fourier_frequencies = 4;
  return c;
}

train::DtRolloutOptions short_games(int64_t episodes, uint64_t seed) {
  train::DtRolloutOptions o;
  o.episodes = episodes, o.seed = seed, o.target_return = 500, o.rtg_scale = 100;
  o.env.max_steps = 60;
  return o;
}

RunRecord record(const HeadRunSpec& r, double best, double final_n, double smooth) {
  Json final_metrics = {{"normalized_return_mean", final_n},
                        {"return_mean", 10 * final_n},
                        {"val_smoothness", smooth},
                        {"val_accuracy", 0.5},
                        {"val_loss", 1.5},
                        {"random_return", 30.0},
                        {"expert_return", 5000.0},
                        {"example_pmfs", {std::vector<double>(18, 1.0 / 18)}},
                        {"example_actions", {3}}};
  Json result = {
      {"params", 1234},
      {"steps", 10},
      {"train_seconds", 2.0},
      {"windows_per_second", 100.0},
      {"random_return", 30.0},
      {"expert_return", 5000.0},
      {"curve", {{{"step", 0}, {"normalized_return_mean", 0.0}}, {{"step", 10}, {"normalized_return_mean", best}}}},
      {"best", {{"step", 10}, {"normalized_return_mean", best}}},
      {"final", final_metrics}};
  return {dt_run_label(r), head_run_json(r), result, 3.0};
}

}  // namespace

TEST_CASE("decision transformer rollouts: side by side equals one at a time, and repeats exactly") {
  Generator gen(1);
  models::DecisionTransformer dt(tiny_model("fourier"), &gen);
  const train::DtRolloutResult together = train::rollout_decision_transformer(dt, short_games(3, 5));
  CHECK(together.returns.size() == 3);
  int64_t actions = 0;
  for (int64_t n : together.action_counts) actions += n;
  int64_t steps = 0;
  for (int64_t s : together.steps) steps += s;
  CHECK(actions == steps);
  for (int64_t s : together.steps) CHECK((s >= 1 && s <= 60));
  // Episode e of a batch is the game episode_seed(seed, e) with its own action stream: a batch
  // of one starting at the same seed plays episode 0 identically.
  const train::DtRolloutResult alone = train::rollout_decision_transformer(dt, short_games(1, 5));
  CHECK(alone.returns[0] == together.returns[0]);
  CHECK(alone.steps[0] == together.steps[0]);
  const train::DtRolloutResult again = train::rollout_decision_transformer(dt, short_games(3, 5));
  CHECK(again.returns == together.returns);
  CHECK(again.action_counts == together.action_counts);
  CHECK(throws_with([&] { train::rollout_decision_transformer(dt, short_games(0, 5)); }, {"episodes must be >= 1"}));
  train::DtRolloutOptions pong = short_games(1, 5);
  pong.game = "pong";
  CHECK(throws_with([&] { train::rollout_decision_transformer(dt, pong); }, {"unknown game 'pong'", "seaquest"}));
  models::DecisionTransformerConfig wide = tiny_model("linear");
  wide.state_dim = 41;
  models::DecisionTransformer wrong(wide, &gen);
  CHECK(throws_with([&] { train::rollout_decision_transformer(wrong, short_games(1, 5)); },
                    {"rollout_decision_transformer", "41 state features", "seaquest has 40"}));
}

TEST_CASE("arcade-dt: the game key picks the game, seaquest when absent") {
  Json c = train::default_config(train::find_task(train::kArcadeDtTask));
  CHECK(c.at("game") == "seaquest");
  CHECK(train::arcade_dt_game(c).name == "seaquest");
  CHECK(train::arcade_dt_model_config(c).state_dim == arcade::game_info("seaquest").observation_size);
  c.erase("game");  // a run config from before the task had games
  CHECK(train::arcade_dt_game(c).name == "seaquest");
  CHECK(train::arcade_dt_model_config(c).state_dim == 40);
  c["game"] = "pong";
  CHECK(throws_with([&] { train::arcade_dt_model_config(c); }, {"unknown game 'pong'", "known games: seaquest"}));
  CHECK(throws_with([&] { train::build_task(train::find_task(train::kArcadeDtTask), c, Device::cpu()); },
                    {"unknown game 'pong'"}));
  // Reference returns are kept per game and settings: the same call returns the same numbers.
  const arcade::ReferenceReturns a = train::arcade_reference_returns("seaquest", 3, {.max_steps = 100});
  const arcade::ReferenceReturns b = train::arcade_reference_returns("seaquest", 3, {.max_steps = 100});
  CHECK((a.random == b.random && a.expert == b.expert));
  CHECK(a.expert == doctest::Approx(arcade::reference_returns("seaquest", 3, 1000003, {.max_steps = 100}).expert));
  CHECK(throws_with([] { train::arcade_reference_returns("pong", 3, {}); }, {"unknown game 'pong'"}));
}

TEST_CASE("arcade-dt: a tiny task trains, validates and evaluates") {
  ScratchDir dir;
  Json c = train::default_config(train::find_task(train::kArcadeDtTask));
  c["dataset_steps"] = 3000, c["val_steps"] = 600, c["max_episode_steps"] = 200;
  c["n_layer"] = 1, c["n_head"] = 2, c["n_embd"] = 16, c["context_length"] = 5, c["batch_size"] = 16;
  c["eval_episodes"] = 2, c["reference_episodes"] = 3, c["val_windows"] = 64, c["head"] = "fourier";
  c["trainer"]["steps"] = 30, c["trainer"]["warmup_steps"] = 5;
  const train::TaskSpec& spec = train::find_task(train::kArcadeDtTask);
  std::unique_ptr<train::Task> task = train::build_task(spec, c, Device::cpu());
  train::Trainer trainer(*task, spec.name, c, dir.str());
  trainer.log = nullptr;
  const train::FitResult fit = trainer.fit();
  CHECK(fit.step == 30);
  const Json& m = fit.eval;
  for (const char* k : {"return_mean", "normalized_return_mean", "random_return", "expert_return", "val_loss",
                        "val_accuracy", "val_smoothness", "example_pmfs"})
    CHECK_MESSAGE(m.contains(k), k);
  CHECK(m.at("expert_return").get<double>() > m.at("random_return").get<double>());
  CHECK(m.at("val_loss").get<double>() < std::log(18.0));  // learned something about the behaviour policy
  CHECK(m.at("example_pmfs").size() == 4);
  c["head"] = "softmax";
  CHECK(throws_with([&] { train::build_task(spec, c, Device::cpu()); }, {"head 'softmax'"}));
}

TEST_CASE("decision-transformer study: quick and full grids") {
  const std::vector<HeadRunSpec> quick = dt_study_grid({.common = {.quick = true}});
  REQUIRE(quick.size() == 3);  // linear, fourier-8, fourier-2 on seed 1
  CHECK(dt_run_label(quick[0]) == "linear seed=1");
  CHECK(dt_run_label(quick[1]) == "fourier-8 seed=1");
  CHECK(dt_run_label(quick[2]) == "fourier-2 seed=1");
  CHECK(quick[1].task_config.at("fourier_frequencies") == 8);
  CHECK(quick[0].task_config.at("n_layer") == 2);
  const std::vector<HeadRunSpec> full = dt_study_grid({});
  // Linear and Fourier-8 on seeds 1-4; every other even N from 2 to 32 on seeds 1-2; linear and
  // Fourier-8 on seeds 1-2 at two model sizes and two data sizes.
  CHECK(full.size() == 4 * 2 + 15 * 2 + 2 * 2 * 2 + 2 * 2 * 2);
  CHECK(full[0].task_config.at("trainer").at("steps") == 3000);
  std::map<std::string, const HeadRunSpec*> by_label;
  for (const HeadRunSpec& r : full) by_label[dt_run_label(r)] = &r;
  for (const char* label :
       {"fourier-14 seed=1", "fourier-30 seed=2", "linear model=L2-d64 seed=2", "fourier-8 model=L4-d96 seed=1",
        "fourier-8 data=50000 seed=1", "linear data=100000 seed=2"})
    CHECK_MESSAGE(by_label.count(label) == 1, label);
  CHECK(by_label.at("fourier-8 data=50000 seed=1")->task_config.at("dataset_steps") == 50000);
  CHECK(by_label.at("linear model=L2-d64 seed=2")->task_config.at("n_embd") == 64);
  CHECK(by_label.at("linear model=L2-d64 seed=2")->task_config.at("n_layer") == 2);
  // The main grid's configs stay as recorded: no ablation key in their JSON.
  CHECK(!head_run_json(*by_label.at("fourier-8 seed=1")).contains("ablation"));
  CHECK(head_run_json(*by_label.at("linear data=100000 seed=2")).at("ablation") == "data=100000");
  const std::vector<HeadRunSpec> quick_all =
      dt_study_grid({.common = {.quick = true}, .parts = {"main", "model", "data"}});
  REQUIRE(quick_all.size() == 3 + 2 + 2);
  CHECK(dt_run_label(quick_all[3]) == "linear model=L1-d32 seed=1");
  CHECK(dt_run_label(quick_all[6]) == "fourier-8 data=20000 seed=1");
  CHECK(quick_all[6].task_config.at("n_layer") == 2);  // the quick scale, only the data size changed
  CHECK(throws_with([] { dt_study_grid({.parts = {"sizes"}}); }, {"unknown part 'sizes'"}));
  for (const HeadRunSpec& r : full) {
    const HeadRunSpec back = head_run_from_json(head_run_json(r), kDtStudy);
    CHECK(dt_run_label(back) == dt_run_label(r));
    CHECK(back.task_config == r.task_config);
    CHECK(back.ablation == r.ablation);
  }
  // The authors' Fourier-head settings leave the linear runs' configs as the default grid's
  // (so their records are shared) and reach every Fourier run.
  const std::vector<HeadRunSpec> code =
      dt_study_grid({.task = {{"fourier_head_init", "trunk"}, {"fourier_gamma", 0}, {"batch_size", 32}}});
  REQUIRE(code.size() == full.size());
  for (size_t i = 0; i < full.size(); ++i) {
    CHECK(code[i].task_config.at("batch_size") == 32);  // other keys reach both heads
    Json plain = code[i].task_config;
    plain["batch_size"] = full[i].task_config.at("batch_size");
    if (code[i].head.fourier()) {
      CHECK(code[i].task_config.at("fourier_head_init") == "trunk");
      CHECK(code[i].task_config.at("fourier_gamma") == 0);
      CHECK(plain != full[i].task_config);
    } else {
      CHECK(plain == full[i].task_config);
    }
  }
  CHECK(HeadChoice::parse("fourier-12", kDtStudy).frequencies == 12);
  CHECK(throws_with([] { HeadChoice::parse("fourier-x", kDtStudy); }, {"fourier-x"}));
  CHECK(throws_with([] { HeadChoice::parse("fourier-0", kDtStudy); }, {"fourier-0"}));
  CHECK(throws_with(
      [] {
        head_run_from_json(Json{{"head", "linear"}}, kDtStudy);
      },
      {"study decision-transformer", "malformed run config"}));
}

TEST_CASE("decision-transformer study: report on known runs") {
  DtStudyPlan plan{.common = {.seeds = {1, 2}}, .frequencies = {2, 16}, .sweep_seeds = {1}, .parts = {"main"}};
  std::vector<RunRecord> records;
  for (const HeadRunSpec& r : dt_study_grid(plan)) {
    const double seed = static_cast<double>(r.seed);
    if (!r.head.fourier())
      records.push_back(record(r, 2.0 + seed, 1.0, 0.05));
    else if (r.head.frequencies == 8)
      records.push_back(record(r, 4.0 + seed, 2.0, 0.02));
    else if (r.head.frequencies == 2)
      records.push_back(record(r, 1.0, 0.5, 0.01));
    else
      records.push_back(record(r, 7.0, 3.0, 0.04));
  }
  const std::vector<DtGroup> groups = aggregate_dt_runs(dt_runs_of(records));
  REQUIRE(groups.size() == 4);  // sorted by N: linear, 2, 8, 16
  CHECK(groups[0].head.name() == "linear");
  CHECK(groups[2].head.name() == "fourier-8");
  CHECK(groups[2].best_normalized.mean == doctest::Approx(5.5));
  CHECK(groups[0].best_normalized.mean == doctest::Approx(3.5));
  const auto claims = dt_claims(groups, 8);
  REQUIRE(claims.size() == 4);
  CHECK(claims[0].holds);  // fourier-8 5.5 > linear 3.5, on 2/2 seeds
  CHECK(claims[0].seeds_holding == 2);
  CHECK(claims[1].holds);  // smoother 0.02 < 0.05
  // The best Fourier head is a maximum over the three Fourier heads, and its line says so.
  CHECK(claims[2].claim.find("max over 3 Fourier heads (fourier-16; each at its best evaluation)") != std::string::npos);
  CHECK_MESSAGE(claims[2].claim.find("> linear: yes on 1/1 seeds; a selected maximum, not a test") != std::string::npos,
                claims[2].claim);  // the sweep head runs on one seed here
  CHECK(claims[3].holds);  // fourier-2 0.01 smoother than fourier-16 0.04

  ScratchDir dir;
  StudyInfo info{.name = "decision-transformer", .quick = false, .jobs = 2, .wall_seconds = 10};
  const StudyReport rep = write_dt_study(dir.str(), dt_runs_of(records), info, 8);
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("| fourier-8 | 2 | 5.50 ± 0.50 | 2.78 ± 0.47") != std::string::npos);
  CHECK(md.find("| linear | 2 | 3.50 ± 0.50 | 2.53 ± 0.63") != std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig4_return_vs_frequencies.svg"));
  CHECK(std::filesystem::exists(dir.str() + "/fig13_pmfs_window1.png"));
  CHECK_FALSE(rep.headline.empty());
}

TEST_CASE("decision-transformer study: the model and data size ablations on known runs") {
  DtStudyPlan plan{
      .common = {.seeds = {1, 2}}, .frequencies = {2}, .sweep_seeds = {1, 2}, .parts = {"main", "model", "data"}};
  plan.model_sizes = {{2, 64}};
  plan.data_sizes = {50000};
  std::vector<RunRecord> records;
  for (const HeadRunSpec& r : dt_study_grid(plan)) {
    const double seed = static_cast<double>(r.seed);
    const double best = r.head.frequencies == 2 ? 1.0 : r.head.fourier() ? 4.0 + seed : 2.0 + seed;
    RunRecord rec = record(r, best, 1.0, r.head.fourier() ? 0.02 : 0.05);
    if (r.ablation == "model=L2-d64") rec.result["params"] = 500;
    if (r.ablation == "data=50000" && r.head.fourier()) rec.result["best"]["normalized_return_mean"] = 1.0;
    records.push_back(rec);
  }
  const std::vector<DtGroup> groups = aggregate_dt_runs(dt_runs_of(records));
  REQUIRE(groups.size() == 3 + 2 + 2);
  CHECK(dt_main_groups(groups).size() == 3);
  const auto model = dt_ablation_points(groups, DtAblation::Model, 8);
  REQUIRE(model.size() == 2);  // the small model, then the main grid's (1234 parameters)
  CHECK(model[0].name == "model=L2-d64");
  CHECK(model[0].size == 500);
  CHECK(model[1].name == "main grid");
  const auto data = dt_ablation_points(groups, DtAblation::Data, 8);
  REQUIRE(data.size() == 2);
  CHECK(data[0].size == 50000);
  CHECK(data[1].size == 200000);
  const auto claims = dt_ablation_claims(groups, 8);
  REQUIRE(claims.size() == 2);
  CHECK(claims[0].holds);  // 5.5 > 3.5
  CHECK(claims[0].claim.find("model=L2-d64 (Figure 14)") != std::string::npos);
  CHECK(!claims[1].holds);  // 1.0 < 3.5 on both seeds
  CHECK(claims[1].seeds_holding == 0);
  CHECK(dt_claims(groups, 8).size() == 3 + 2);  // fourier-8 vs linear, smoother; fourier-2 vs 8; the ablations'

  ScratchDir dir;
  StudyInfo info{.name = "decision-transformer", .quick = false, .jobs = 2, .wall_seconds = 10};
  write_dt_study(dir.str(), dt_runs_of(records), info, 8);
  const std::string md = read_text(dir.str() + "/summary.md");
  CHECK(md.find("| model=L2-d64 | 500 | 2 | 3.50 ± 0.50 | 5.50 ± 0.50 |") != std::string::npos);
  CHECK(md.find("| data=50000 | 50000 | 2 | 3.50 ± 0.50 | 1.00 ± 0.00 |") != std::string::npos);
  CHECK(md.find("| linear | 2 | 3.50 ± 0.50 | 2.53 ± 0.63") != std::string::npos);  // Table 2: main grid only
  CHECK(md.find("Not run yet") == std::string::npos);
  CHECK(std::filesystem::exists(dir.str() + "/fig14_return_vs_model_size.png"));
  CHECK(std::filesystem::exists(dir.str() + "/fig15_return_vs_data_size.svg"));
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("heads").size() == 3);
  CHECK(summary.at("ablations").at("model_size").size() == 2);

  // Without ablation records each figure's section says so, and no figure is drawn.
  const std::vector<DtGroup> main_only = dt_main_groups(groups);
  const std::string none = dt_ablations_markdown(main_only, 8);
  CHECK(none.find("Not run yet") != std::string::npos);
  CHECK(none.find("--only 'model='") != std::string::npos);
  CHECK(dt_ablation_plot(main_only, DtAblation::Data, 8).series.empty());
}

TEST_CASE("decision-transformer study: a quick study with the ablations trains and reports through the driver") {
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .out = dir.str()};
  const StudySpec& spec = find_study("decision-transformer");
  args.sets = {"task=" + spec.smoke.at("task").dump(), R"(parts=["main","model","data"])", "model_sizes=[[1,8]]",
               "data_sizes=[1500]"};
  const StudyOutcome out = run_study(spec, args, nullptr);
  CHECK(out.done == 7);
  CHECK(out.total == 7);
  const Json summary = Json::parse(read_text(dir.str() + "/summary.json"));
  CHECK(summary.at("heads").size() == 3);  // linear, fourier-2, fourier-8 of the main grid
  const Json& ablations = summary.at("ablations");
  REQUIRE(ablations.at("model_size").size() == 2);
  CHECK(ablations.at("model_size")[0].at("point") == "model=L1-d8");
  CHECK(ablations.at("model_size")[0].at("linear").at("params").get<int64_t>() <
        ablations.at("model_size")[1].at("linear").at("params").get<int64_t>());
  REQUIRE(ablations.at("data_size").size() == 2);
  CHECK(ablations.at("data_size")[0].at("size") == 1500);
  CHECK(std::filesystem::exists(dir.str() + "/fig15_return_vs_data_size.svg"));
  CHECK(read_text(dir.str() + "/summary.md").find("at data=1500 (Figure 15)") != std::string::npos);
}

// The measured full run behind README's tables (tests/study_helpers.h): all of today's 54 runs.
TEST_CASE("decision-transformer study: the committed full run reports again to its committed summary") {
  const StudyOutcome out = check_committed_full_run("decision-transformer", "decision_transformer", 54);
  CHECK(out.done == 54);
}

// quick_run: the quick mode on seeds 1-4 behind README's quick table.
TEST_CASE("decision-transformer study: the committed quick run reports again to its committed summary") {
  CHECK(check_committed_full_run("decision-transformer", "decision_transformer", 12, "quick_run").done == 12);
}

// code_run: the Fourier-8 rows under the authors' released code's settings (the trunk's init
// reaches the head, no regulariser) on seeds 1-4, beside the full run's linear records, which
// have the same configs under those settings (the grid test above).
TEST_CASE("decision-transformer study: the committed run under the authors' code's settings reports again") {
  CHECK(check_committed_full_run("decision-transformer", "decision_transformer", 54, "code_run").done == 8);
}

// code_run_heads: the same settings with Fourier-14 (the arXiv table's best) and the N = 20-32
// heads on seeds 1-4 (40 runs; linear and Fourier-8 copied from code_run, whose configs they are),
// filled in as the runs land.
TEST_CASE("decision-transformer study: the committed heads run under the authors' code's settings reports again") {
  CHECK(check_committed_full_run("decision-transformer", "decision_transformer", 40, "code_run_heads").done >= 10);
}

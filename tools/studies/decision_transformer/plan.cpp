#include "harmonic/tools/studies/decision_transformer/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/games.h"

namespace hm::studies {
namespace {

constexpr const char* kDecisionTransformerPlan = kDtStudy;

bool has_part(const DtStudyPlan& plan, const std::string& part) {
  // quick, and the other games: no ablations by default
  if (plan.parts.empty()) return (!plan.common.quick && plan.game == kDtDefaultGame) || part == "main";
  return std::find(plan.parts.begin(), plan.parts.end(), part) != plan.parts.end();
}

// Every even N from 2 to 32: the paper's sweep (Figure 4).
std::vector<int64_t> paper_sweep() {
  std::vector<int64_t> n;
  for (int64_t f = 2; f <= 32; f += 2) n.push_back(f);
  return n;
}

template <class T>
std::vector<T> or_default(const std::vector<T>& given, std::vector<T> quick, std::vector<T> full, bool is_quick) {
  if (!given.empty()) return given;
  return is_quick ? quick : full;
}

// The fourier_* task keys (frequencies, gamma, head init) act on a Fourier head only; a linear
// run without them has the same config under any of their settings, so a study of the
// authors' Fourier-head settings shares the default study's linear records.
void drop_fourier_keys(Json& task_config) {
  for (auto it = task_config.begin(); it != task_config.end();)
    it = it.key().starts_with("fourier_") ? task_config.erase(it) : std::next(it);
}

}  // namespace

const std::string& dt_checked_game(const std::string& game) {
  std::string known;
  for (const arcade::GameInfo& g : arcade::games()) {
    if (g.name == game) return game;
    known += (known.empty() ? "" : ", ") + g.name;
  }
  throw_error(kDecisionTransformerPlan, fmt::format("unknown game '{}' (known games: {})", game, known));
}

std::string dt_game_of(const Json& task_config) {
  return task_config.contains("game") ? task_config.at("game").get<std::string>() : std::string(kDtDefaultGame);
}

Json dt_scale(const DtStudyPlan& plan) {
  if (plan.common.paper_scale)  // Appendix D.1: 500k transitions, 5 epochs, minGPT DT's batch 128, the paper's model
    return {{"dataset_steps", 500000}, {"batch_size", 128}, {"eval_episodes", 10},
            {"trainer", {{"epochs", 5}, {"steps", 0}, {"warmup_steps", 512}}}};
  if (plan.common.quick)  // a smaller model and context: minutes on 2 cores
    return {{"dataset_steps", 50000}, {"val_steps", 5000}, {"n_layer", 2},       {"n_head", 4},
            {"n_embd", 64},           {"context_length", 10}, {"batch_size", 64}, {"eval_episodes", 10},
            {"trainer", {{"steps", 1500}, {"warmup_steps", 100}, {"eval_every", 500}}}};
  // Full: the paper's model (6 layers, 8 heads, d 128, K 30) on 200k transitions.
  return {{"dataset_steps", 200000}, {"batch_size", 64}, {"eval_episodes", 20},
          {"trainer", {{"steps", 3000}, {"warmup_steps", 200}, {"eval_every", 1000}}}};
}

std::vector<HeadRunSpec> dt_study_grid(const DtStudyPlan& plan) {
  check(plan.main_frequencies >= 1, kDecisionTransformerPlan, "main_frequencies must be >= 1, got {}", plan.main_frequencies);
  for (const std::string& p : plan.parts)
    check(std::find(kDtParts.begin(), kDtParts.end(), p) != kDtParts.end(), kDecisionTransformerPlan,
          "unknown part '{}' (main, model, data)", p);
  const std::vector<int64_t> sweep = or_default<int64_t>(plan.frequencies, {2}, paper_sweep(), plan.common.quick);
  for (int64_t n : sweep) check(n >= 1, kDecisionTransformerPlan, "frequencies must be >= 1, got {}", n);
  const std::vector<uint64_t> seeds = or_default<uint64_t>(plan.common.seeds, {1}, {1, 2, 3, 4}, plan.common.quick);
  const std::vector<uint64_t> sweep_seeds =
      or_default<uint64_t>(plan.sweep_seeds, plan.common.seeds.empty() ? std::vector<uint64_t>{1} : plan.common.seeds,
                           {1, 2}, plan.common.quick);
  const std::vector<DtModelSize> model_sizes =
      or_default<DtModelSize>(plan.model_sizes, {{1, 32}}, {{2, 64}, {4, 96}}, plan.common.quick);
  const std::vector<int64_t> data_sizes =
      or_default<int64_t>(plan.data_sizes, {20000}, {50000, 100000}, plan.common.quick);
  for (const DtModelSize& m : model_sizes)
    check(m.n_layer >= 1 && m.n_embd >= 1, kDecisionTransformerPlan, "model sizes need n_layer, n_embd >= 1, got {}, {}", m.n_layer,
          m.n_embd);
  for (int64_t n : data_sizes) check(n >= 1, kDecisionTransformerPlan, "data sizes must be >= 1 transitions, got {}", n);
  dt_checked_game(plan.game);
  check(!plan.task.contains("game") || plan.task.at("game") == plan.game, kDecisionTransformerPlan,
        "the game is the study's option 'game' ('{}'), not task key 'game' ({})", plan.game,
        plan.task.contains("game") ? plan.task.at("game").dump() : "");
  // The heads on every seed: the main N, and on the other games' full grid Fourier-14 too.
  std::vector<int64_t> every_seed = {plan.main_frequencies};
  if (plan.game != kDtDefaultGame && !plan.common.quick && plan.main_frequencies != kDtGameSecondFrequencies)
    every_seed.push_back(kDtGameSecondFrequencies);
  std::vector<HeadRunSpec> grid;
  auto add = [&](HeadChoice head, uint64_t seed, const std::string& ablation, const Json& keys) {
    for (const HeadRunSpec& r : grid)
      if (r.head.frequencies == head.frequencies && r.seed == seed && r.ablation == ablation) return;
    HeadRunSpec run{.head = head, .seed = seed, .device = plan.common.device, .ablation = ablation};
    run.task_config = dt_scale(plan);
    run.task_config.merge_patch(plan.task);
    run.task_config.merge_patch(keys);
    run.task_config.merge_patch(head.task_keys());
    if (!head.fourier()) drop_fourier_keys(run.task_config);
    if (plan.game != kDtDefaultGame) run.task_config["game"] = plan.game;
    run.task_config["seed"] = seed;
    grid.push_back(std::move(run));
  };
  if (has_part(plan, "main")) {
    for (uint64_t seed : seeds) {
      add(HeadChoice{}, seed, "", Json::object());
      for (int64_t n : every_seed) add(HeadChoice{n}, seed, "", Json::object());
    }
    for (int64_t n : sweep)
      for (uint64_t seed : sweep_seeds) add(HeadChoice{n}, seed, "", Json::object());
  }
  auto add_pair = [&](const std::string& ablation, const Json& keys) {
    for (uint64_t seed : sweep_seeds) {
      add(HeadChoice{}, seed, ablation, keys);
      add(HeadChoice{plan.main_frequencies}, seed, ablation, keys);
    }
  };
  if (has_part(plan, "model"))
    for (const DtModelSize& m : model_sizes)
      add_pair(dt_model_ablation(m), {{"n_layer", m.n_layer}, {"n_embd", m.n_embd}});
  if (has_part(plan, "data"))
    for (int64_t n : data_sizes) add_pair(dt_data_ablation(n), {{"dataset_steps", n}});
  return grid;
}

std::string dt_model_ablation(const DtModelSize& size) {
  return fmt::format("model=L{}-d{}", size.n_layer, size.n_embd);
}
std::string dt_data_ablation(int64_t transitions) { return fmt::format("data={}", transitions); }

std::string dt_run_label(const HeadRunSpec& run) {
  if (run.ablation.empty()) return fmt::format("{} seed={}", run.head.name(), run.seed);
  return fmt::format("{} {} seed={}", run.head.name(), run.ablation, run.seed);
}

double dt_run_cost(const HeadRunSpec& run) {
  const Json& c = run.task_config;
  auto get = [&](const char* k, double fallback) { return c.contains(k) ? c.at(k).get<double>() : fallback; };
  const Json& t = c.contains("trainer") ? c.at("trainer") : Json::object();
  const double steps = t.contains("steps") ? t.at("steps").get<double>() : 4000.0;
  return std::max(1.0, steps) * get("batch_size", 128) * get("context_length", 30) * get("n_layer", 6) * 1e-5;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/decision_transformer/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::studies {
namespace {

constexpr const char* kPlan = kDtStudy;

template <class T>
std::vector<T> or_default(const std::vector<T>& given, std::vector<T> quick, std::vector<T> full, bool is_quick) {
  if (!given.empty()) return given;
  return is_quick ? quick : full;
}

}  // namespace

Json dt_scale(const DtStudyPlan& plan) {
  if (plan.paper_scale)  // Appendix D.1: 500k transitions, 5 epochs, minGPT DT's batch 128, the paper's model
    return {{"dataset_steps", 500000}, {"batch_size", 128}, {"eval_episodes", 10},
            {"trainer", {{"epochs", 5}, {"steps", 0}, {"warmup_steps", 512}}}};
  if (plan.quick)  // a smaller model and context: minutes on 2 cores
    return {{"dataset_steps", 50000}, {"val_steps", 5000}, {"n_layer", 2},       {"n_head", 4},
            {"n_embd", 64},           {"context_length", 10}, {"batch_size", 64}, {"eval_episodes", 10},
            {"trainer", {{"steps", 1500}, {"warmup_steps", 100}, {"eval_every", 500}}}};
  // Full: the paper's model (6 layers, 8 heads, d 128, K 30) on 200k transitions.
  return {{"dataset_steps", 200000}, {"batch_size", 64}, {"eval_episodes", 20},
          {"trainer", {{"steps", 3000}, {"warmup_steps", 200}, {"eval_every", 1000}}}};
}

std::vector<HeadRunSpec> dt_study_grid(const DtStudyPlan& plan) {
  check(plan.main_frequencies >= 1, kPlan, "main_frequencies must be >= 1, got {}", plan.main_frequencies);
  const std::vector<int64_t> sweep =
      or_default<int64_t>(plan.frequencies, {2}, {2, 4, 12, 16, 32}, plan.quick);
  for (int64_t n : sweep) check(n >= 1, kPlan, "frequencies must be >= 1, got {}", n);
  const std::vector<uint64_t> seeds = or_default<uint64_t>(plan.seeds, {1}, {1, 2, 3, 4}, plan.quick);
  const std::vector<uint64_t> sweep_seeds =
      or_default<uint64_t>(plan.sweep_seeds, plan.seeds.empty() ? std::vector<uint64_t>{1} : plan.seeds, {1, 2},
                           plan.quick);
  std::vector<HeadRunSpec> grid;
  auto add = [&](HeadChoice head, uint64_t seed) {
    for (const HeadRunSpec& r : grid)
      if (r.head.frequencies == head.frequencies && r.seed == seed) return;
    HeadRunSpec run{.head = head, .seed = seed, .device = plan.device};
    run.task_config = dt_scale(plan);
    run.task_config.merge_patch(plan.task);
    run.task_config.merge_patch(head.task_keys());
    run.task_config["seed"] = seed;
    grid.push_back(std::move(run));
  };
  for (uint64_t seed : seeds) {
    add(HeadChoice{}, seed);
    add(HeadChoice{plan.main_frequencies}, seed);
  }
  for (int64_t n : sweep)
    for (uint64_t seed : sweep_seeds) add(HeadChoice{n}, seed);
  return grid;
}

std::string dt_run_label(const HeadRunSpec& run) { return fmt::format("{} seed={}", run.head.name(), run.seed); }

double dt_run_cost(const HeadRunSpec& run) {
  const Json& c = run.task_config;
  auto get = [&](const char* k, double fallback) { return c.contains(k) ? c.at(k).get<double>() : fallback; };
  const Json& t = c.contains("trainer") ? c.at("trainer") : Json::object();
  const double steps = t.contains("steps") ? t.at("steps").get<double>() : 4000.0;
  return std::max(1.0, steps) * get("batch_size", 128) * get("context_length", 30) * get("n_layer", 6) * 1e-5;
}

}  // namespace hm::studies

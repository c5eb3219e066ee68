#include "harmonic/tools/studies/audio_bpm/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::studies {
namespace {
constexpr const char* kAudioBpmPlan = kBpmStudy;
}

Json bpm_scale(bool quick, bool paper_scale) {
  if (paper_scale)  // AST's ViT-base shape: 4 s at 16 kHz -> 400 frames of 128 bands, 100 tokens of 4 frames
    return {{"train_clips", 16000}, {"test_clips", 2000}, {"sample_rate", 16000.0}, {"n_fft", 512},
            {"hop", 160},           {"bands", 128},       {"patch_frames", 4},       {"dim", 768},
            {"depth", 12},          {"heads", 12},        {"mlp_ratio", 4.0},        {"dropout", 0.1},
            {"batch_size", 64},     {"lr", 3e-4},
            {"trainer", {{"steps", 20000}, {"warmup_steps", 1000}, {"eval_every", 2000}}}};
  if (quick) return Json::object();  // the task's defaults are the quick scale
  return {{"train_clips", 32000}, {"test_clips", 4000},
          {"dim", 128},           {"depth", 4},
          {"heads", 4},           {"batch_size", 64},
          {"lr", 1e-3},           {"trainer", {{"steps", 6000}, {"warmup_steps", 300}, {"eval_every", 1000}}}};
}

std::vector<HeadRunSpec> bpm_study_grid(const BpmStudyPlan& plan) {
  std::vector<int64_t> frequencies = plan.frequencies.empty() ? std::vector<int64_t>{1, 2} : plan.frequencies;
  for (int64_t n : frequencies) check(n >= 1, kAudioBpmPlan, "frequencies must be >= 1, got {}", n);
  std::vector<uint64_t> seeds = plan.common.seeds;
  const bool quick = plan.common.quick && !plan.common.paper_scale;  // paper_scale takes the full mode's seeds
  if (seeds.empty()) seeds = quick ? std::vector<uint64_t>{1, 2, 3} : std::vector<uint64_t>{1, 2, 3, 4, 5};
  std::vector<HeadChoice> heads{HeadChoice{}};
  for (int64_t n : frequencies)
    if (std::none_of(heads.begin(), heads.end(), [&](const HeadChoice& h) { return h.frequencies == n; }))
      heads.push_back({n});
  std::vector<HeadRunSpec> grid;
  for (uint64_t seed : seeds)
    for (const HeadChoice& head : heads) {
      HeadRunSpec run{.head = head, .seed = seed, .device = plan.common.device};
      run.task_config = bpm_scale(quick, plan.common.paper_scale);
      run.task_config.merge_patch(plan.task);
      run.task_config.merge_patch(head.task_keys());
      run.task_config["seed"] = seed;
      grid.push_back(std::move(run));
    }
  return grid;
}

std::string bpm_run_label(const HeadRunSpec& run) { return fmt::format("{} seed={}", run.head.name(), run.seed); }

double bpm_run_cost(const HeadRunSpec& run) {
  const Json& c = run.task_config;
  auto get = [&](const char* k, double fallback) { return c.contains(k) ? c.at(k).get<double>() : fallback; };
  const Json& t = c.contains("trainer") ? c.at("trainer") : Json::object();
  const double steps = t.contains("steps") ? t.at("steps").get<double>() : 800.0;
  const double dim = get("dim", 64);
  return std::max(1.0, steps) * get("batch_size", 32) * dim * dim * get("depth", 2) * 1e-8;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/rng_lm/plan.h"

#include <fmt/format.h>

#include "harmonic/tools/tasks/fourier_kernel_config.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/tasks/rng_lm.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"

namespace hm::studies {

Json rng_pretrain_config(const RngStudyPlan& plan) {
  Json c = train::default_config(train::find_task(train::kKjvLmTask));
  // Block 160: the longest prompt with its response is 133 characters.
  Json mode = {{"tokenizer", "char"},
               {"references", true},
               {"n_layer", plan.common.quick ? 2 : 4},
               {"n_head", 4},
               {"n_embd", plan.common.quick ? 64 : 128},
               {"n_inner", plan.common.quick ? 256 : 512},
               {"block_size", 160},
               {"dropout", 0.0},
               {"positions", "learned"},
               {"batch_size", 16},
               {"lr", 1e-3},
               {"eval_tokens", 16384},
               {"seed", 0},
               {"trainer",
                {{"steps", plan.common.quick ? 600 : 4000},
                 {"warmup_steps", 100},
                 {"lr_schedule", "cosine"},
                 {"clip_grad_norm", 1.0},
                 {"checkpoint_every", 200},
                 {"eval_every", 0},
                 {"log_every", 1000}}}};
  train::merge_config(c, mode, "study rng-lm");
  if (plan.common.paper_scale) {
    const Json gpu = {{"n_layer", 12},   {"n_head", 12},  {"n_embd", 768},   {"n_inner", 3072},
                      {"dropout", 0.1},  {"batch_size", 64}, {"lr", 6e-4},
                      {"trainer", {{"steps", 50000}, {"warmup_steps", 2000}, {"checkpoint_every", 1000}}}};
    train::merge_config(c, gpu, "study rng-lm paper_scale");
  }
  train::merge_config(c, plan.pretrain, "study rng-lm option pretrain");
  // kjv-lm keys newer than the recorded full run, at their defaults, stay out of the run config
  // (records compare configs whole; the task reads an absent key as its default).
  Json newer = train::fourier_kernel_json(nn::FourierKernelOptions{});
  newer["fourier_r_lr"] = 0.0;  // R at the model's lr (kjv_lm_defaults)
  for (const char* key : {"fourier_eps", "fourier_log_r", "fourier_r_lr"})
    if (c.contains(key) && c[key] == newer.at(key)) c.erase(key);
  return c;
}

std::vector<StudyRun> rng_study_grid(const RngStudyPlan& plan) {
  const bool quick = plan.common.quick && !plan.common.paper_scale;  // paper_scale takes the full mode's grid
  std::vector<uint64_t> seeds = plan.common.seeds;
  if (seeds.empty()) seeds = quick ? std::vector<uint64_t>{1, 2} : std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const int64_t samples = plan.samples > 0 ? plan.samples : (quick ? 100 : 200);
  const int64_t long_epochs = plan.long_epochs >= 0 ? plan.long_epochs : (quick ? 48 : 128);
  const Json pretrain = rng_pretrain_config(plan);
  Json finetune = train::default_config(train::find_task(train::kRngLmTask));
  train::merge_config(finetune, plan.finetune, "study rng-lm option finetune");
  const int64_t epochs = finetune.at("trainer").at("epochs").get<int64_t>();
  std::vector<StudyRun> runs;
  for (uint64_t seed : seeds)
    for (const std::string& model : rng_models()) {
      const bool is_long = model.ends_with("-long");
      if (is_long && long_epochs == 0) continue;
      Json config = {{"model", model},
                     {"seed", seed},
                     {"samples", samples},
                     {"epochs", model == "base" ? 0 : is_long ? long_epochs : epochs},
                     {"pretrain", pretrain},
                     {"finetune", finetune}};
      // Only off the CPU: the CPU configs stay as recorded before the option existed, so those
      // studies still resume.
      if (plan.common.device != "cpu") config["device"] = plan.common.device;
      const double cost = model == "base" ? 1.0 : (is_long ? 2.0 + long_epochs / 16.0 : 3.0);
      runs.push_back({fmt::format("seed{}/{}", seed, model), config, cost});
    }
  return runs;
}

}  // namespace hm::studies

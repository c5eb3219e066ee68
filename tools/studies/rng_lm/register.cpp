// `harmonic study rng-lm`: the Fourier head paper's "LLMs as random number generators" study
// (section 4.2, Appendix C.4) registered with the study driver: the grid of plan.h, one run
// of run.h per point, the report and figures of report.h.
#include <fmt/format.h>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/rng_lm/plan.h"
#include "harmonic/tools/studies/rng_lm/report.h"
#include "harmonic/tools/studies/rng_lm/run.h"

namespace hm::studies {
namespace {

RngStudyPlan rng_lm_plan_of(const StudyContext& c) {
  RngStudyPlan plan{.common = c.common()};
  const Json& o = c.options;
  plan.samples = o.at("samples").get<int64_t>();
  plan.long_epochs = o.at("long_epochs").get<int64_t>();
  plan.pretrain = o.at("pretrain");
  plan.finetune = o.at("finetune");
  return plan;
}

StudySpec rng_lm_study() {
  StudySpec s;
  s.name = "rng-lm";
  s.description =
      "Fourier head (Gillman et al. 2025) section 4.2 / Appendix C.4, Figures 3 and 12: a char-level KJV GPT as a "
      "random number generator, base vs LoRA token head vs LoRA Fourier head (TVD, unique samples)";
  s.modes =
      "quick: a 2-layer d 64 char GPT pretrained 600 steps, seeds 1 2, 100 samples per distribution, the paper's "
      "16 epochs plus 48-epoch rows: 10 runs; full: 4 layers d 128, 4000 pretraining steps, seeds 1..10, 200 "
      "samples, 16 and 128 epochs: 50 runs; --set paper_scale=true: the full grid over a 12-layer d 768 base model "
      "pretrained 50k steps of batch 64 (a GPU's job: --set device=cuda)";
  // samples: per distribution (0: the mode's); long_epochs: the longer rows (-1: the mode's, 0:
  // none); pretrain / finetune: kjv-lm / rng-lm keys over the mode's.
  s.options = {{"samples", 0}, {"long_epochs", -1}, {"pretrain", Json::object()}, {"finetune", Json::object()}};
  s.smoke = {{"samples", 8}, {"long_epochs", 1}, {"pretrain", {{"n_layer", 1}, {"n_head", 2}, {"n_embd", 32}, {"n_inner", 64}, {"batch_size", 8}, {"eval_tokens", 1024}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 0}}}}}, {"finetune", {{"pairs", 16}, {"batch_size", 8}, {"frequencies", 4}, {"lora_rank", 4}, {"trainer", {{"epochs", 1}}}}}};
  s.grid = [](const StudyContext& c) { return rng_study_grid(rng_lm_plan_of(c)); };
  s.run = [](const StudyRun& run) { return run_rng_lm(run.config, run.dir, run.work_dir); };
  s.describe = [](const RunRecord& r) {
    return fmt::format(" tvd {:.3f} (L1 {:.3f}) unique {:.1f} invalid {:.1f}", r.result.at("tvd_paper").get<double>(),
                       r.result.at("tvd_l1").get<double>(), r.result.at("unique").get<double>(),
                       r.result.at("invalid").get<double>());
  };
  s.report = [](const ReportInput& in) { return write_rng_study(in); };
  return s;
}

const StudyRegistration rng_lm_registration{rng_lm_study()};

}  // namespace
}  // namespace hm::studies

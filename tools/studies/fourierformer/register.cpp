// `harmonic study fourierformer`: the FourierFormer paper's experiments registered with the
// study driver (tools/studies/driver/driver.h): the grid of plan.h, one run of run.h per point, the
// report and figures of report.h and figures.h.
#include <fmt/format.h>

#include <cmath>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fourierformer/plan.h"
#include "harmonic/tools/studies/fourierformer/report.h"
#include "harmonic/tools/studies/fourierformer/run.h"

namespace hm::studies {
namespace {

constexpr const char* kFourierformerStudy = "study fourierformer";

FfStudyPlan fourierformer_plan_of(const StudyContext& c) {
  FfStudyPlan plan{.common = c.common()};
  const Json& o = c.options;
  plan.parts = o.at("parts").get<std::vector<std::string>>();
  plan.ps = o.at("ps").get<std::vector<int64_t>>();
  plan.r_inits = o.at("r_inits").get<std::vector<double>>();
  plan.r_lrs = o.at("r_lrs").get<std::vector<double>>();
  plan.r_vector = o.at("r_vector").get<bool>();
  plan.ablation_seeds = o.at("ablation_seeds").get<std::vector<uint64_t>>();
  plan.save_models = o.at("save_models").get<bool>();
  plan.lm = c.task_keys("lm", kFourierformerStudy), plan.vit = c.task_keys("vit", kFourierformerStudy);
  return plan;
}

StudySpec fourierformer_study() {
  StudySpec s;
  s.name = "fourierformer";
  s.description =
      "FourierFormer (Nguyen et al. 2022, section 4 and Appendix D, Tables 1-5): KJV language model and "
      "Fashion-MNIST ViT, softmax vs Fourier attention";
  s.modes =
      "quick: seed 1; the LM (2 layers, d 128, 8 heads, context 64) for 400 steps, softmax vs Fourier and x^1, x^2, "
      "the medium LM (d 256, context 96) softmax vs Fourier, the ViT on 6000 images for 3 epochs: 8 runs; full: the "
      "same LMs for 1000 steps, "
      "softmax vs Fourier, p in 1 2 3 6 and R_init in 0.1 0.5 1 3 4 and R a vector, the "
      "ViT on 54000 images for 3 epochs, and the main Fourier LM with the authors' code's eps 1e-6 and "
      "with a learned log R, the same with log R at its own lr (learned_r), the medium pair and the medium Fourier LM at R_init 0.5, all on seeds 1-5 (the paper's "
      "five): 100 runs; --set paper_scale=true: the paper's 16-layer models (medium: d 256, context 384) "
      "(d_inner 2048, context 256, batch 96, 500k steps) and DeiT-tiny's shape (with --set device=cuda on a GPU)";
  // parts: subset of ["lm", "p", "r", "vit", "code", "medium", "learned_r"] ([]: the mode's); ps / r_inits: the
  // ablations' values besides the main run's p = 4 and R_init = 2 ([]: the mode's); r_lrs: the learned_r part's
  // lrs of log R ([]: plan.h's kFfLearnedRLr); lm / vit: task keys
  // merged into every run of that task (--set 'lm={"trainer":{"steps":100}}').
  s.options = {
      {"parts", Json::array()}, {"ps", Json::array()},   {"r_inits", Json::array()},        {"r_vector", true}, {"r_lrs", Json::array()},
      {"lm", Json::object()},   {"vit", Json::object()}, {"ablation_seeds", Json::array()}, {"save_models", true}};
  s.smoke = {{"parts", {"lm"}}, {"save_models", false}, {"lm", {{"n_layer", 1}, {"n_head", 2}, {"n_embd", 32}, {"n_inner", 64}, {"block_size", 16}, {"batch_size", 8}, {"eval_tokens", 1024}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 0}}}}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(ff_study_grid(fourierformer_plan_of(c)), ff_run_label, ff_run_json, ff_run_cost);
  };
  s.run = [](const StudyRun& run) { return run_fourierformer(ff_run_from_json(run.config), run.dir, run.work_dir); };
  s.describe = [](const RunRecord& r) {
    const FfRunSpec spec = ff_run_from_json(r.config);
    std::string out;
    if (!r.result.at("diverged").is_null())
      out = fmt::format(" diverged at step {}", r.result.at("diverged").at("step").get<int64_t>());
    const Json& f = r.result.at("final");
    auto num = [&](const char* k) {
      return f.is_object() && f.contains(k) && f.at(k).is_number() ? f.at(k).get<double>() : NAN;
    };
    if (spec.task == FfTask::Lm)
      return out + fmt::format(" val_ppl {:.2f} test_ppl {:.2f}", num("val_ppl"), num("test_ppl"));
    return out + fmt::format(" top1 {:.2f}%", 100 * num("test_accuracy"));
  };
  s.report = [](const ReportInput& in) { return write_ff_study(in.dir, ff_runs_of(in.records), in.info); };
  return s;
}

const StudyRegistration fourierformer_registration{fourierformer_study()};

}  // namespace
}  // namespace hm::studies

#include "harmonic/tools/studies/fourierformer/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/tools/studies/driver/run_config.h"

namespace hm::studies {
namespace {

constexpr const char* kFourierformerPlan = "study fourierformer";

bool has_part(const FfStudyPlan& plan, const std::string& part) {
  if (plan.parts.empty())  // quick: none of r, code, learned_r by default
    return !plan.common.quick || (part != "r" && part != "code" && part != "learned_r");
  return std::find(plan.parts.begin(), plan.parts.end(), part) != plan.parts.end();
}

// The paper averages every result over 5 runs with different seeds (section 4); so does full mode.
std::vector<uint64_t> main_seeds(const FfStudyPlan& plan) {
  if (!plan.common.seeds.empty()) return plan.common.seeds;
  return plan.common.quick ? std::vector<uint64_t>{1} : std::vector<uint64_t>{1, 2, 3, 4, 5};
}

std::vector<uint64_t> ablation_seeds(const FfStudyPlan& plan) {
  if (!plan.ablation_seeds.empty()) return plan.ablation_seeds;
  return main_seeds(plan);
}

// The paper's main Fourier settings: p = 4; R init 2 for language, 1 for images.
FfVariant main_fourier(FfTask task) { return {.fourier = true, .p = 4, .r_init = task == FfTask::Lm ? 2.0 : 1.0}; }

std::string format_r(double r) { return fmt::format("{:g}", r); }

}  // namespace

const char* ff_task_name(FfTask task) { return task == FfTask::Lm ? "kjv-lm" : "fashion-vit"; }

Json FfVariant::task_keys() const {
  if (!fourier) return {{"attention", "softmax"}};
  Json keys = {
      {"attention", "fourier"}, {"fourier_p", p}, {"fourier_r_init", r_init}, {"fourier_r_per_dim", r_per_dim}};
  if (eps != 0.0) keys["fourier_eps"] = eps;  // only where set: the other runs' configs stay as recorded
  if (log_r) keys["fourier_log_r"] = true;
  if (r_lr != 0.0) keys["fourier_r_lr"] = r_lr;
  return keys;
}

std::string FfVariant::name() const {
  if (!fourier) return medium ? "softmax medium" : "softmax";
  return fmt::format("fourier p={} R={}{}{}{}{}{}", p, format_r(r_init), r_per_dim ? " vector" : "",
                     eps != 0.0 ? fmt::format(" eps={:g}", eps) : "", log_r ? " logR" : "",
                     r_lr != 0.0 ? fmt::format(" rlr={:g}", r_lr) : "", medium ? " medium" : "");
}

std::string FfVariant::display() const {
  if (!fourier) return medium ? "softmax (dot product), medium" : "softmax (dot product)";
  return fmt::format("FourierFormer, x^{}, R_init {}{}{}{}{}{}", p, format_r(r_init),
                     r_per_dim ? ", R a vector" : "", eps != 0.0 ? fmt::format(", A = K / (sum K + {:g})", eps) : "",
                     log_r ? ", log R learned" : "", r_lr != 0.0 ? fmt::format(" at lr {:g}", r_lr) : "",
                     medium ? ", medium" : "");
}

// The medium language model over the small one's scale: the paper's d 256 (8 heads of 32) and
// context 384 against the small's 128 and 256, so 1.5x the mode's context.
Json ff_medium_keys(const FfStudyPlan& plan) {
  if (plan.common.paper_scale) return {{"n_embd", 256}, {"block_size", 384}};
  return {{"n_embd", 256}, {"block_size", 96}};
}

Json ff_scale(const FfStudyPlan& plan, FfTask task) {
  if (task == FfTask::Lm) {
    if (plan.common.paper_scale)  // the small WikiText-103 model of lmtool-fwp (the paper's code base)
      return {{"n_layer", 16},     {"n_embd", 128},
              {"n_head", 8},       {"n_inner", 2048},
              {"block_size", 256}, {"batch_size", 96},
              {"lr", 2.5e-4},      {"dropout", 0.1},
              {"eval_tokens", 0},  {"trainer", {{"steps", 500000}, {"warmup_steps", 2000}, {"eval_every", 10000}}}};
    // Quick and full share the model (the paper's d 128, 8 heads of 16 dims, 2 layers instead
    // of 16, context 64 instead of 256, d_inner 512 instead of 2048) and differ in length.
    Json lm = {{"n_layer", 2}, {"block_size", 64}, {"batch_size", 16}};
    if (plan.common.quick) {
      lm["eval_tokens"] = 8192;
      lm["trainer"] = {{"steps", 400}, {"warmup_steps", 40}, {"eval_every", 50}};
    } else {
      lm["eval_tokens"] = 0;  // the whole validation and test splits
      lm["trainer"] = {{"steps", 1000}, {"warmup_steps", 100}, {"eval_every", 200}};
    }
    return lm;
  }
  if (plan.common.paper_scale)  // DeiT-tiny's shape (patch 16 on 224 px = 196 tokens; here patch 4 on 28 px = 49)
    return {{"patch", 4},   {"dim", 192},           {"depth", 12},
            {"heads", 3},   {"mlp_ratio", 4.0},     {"batch_size", 256},
            {"lr", 2.5e-4}, {"weight_decay", 0.05}, {"trainer", {{"epochs", 300}, {"warmup_steps", 1000}}}};
  if (plan.common.quick) return {{"train_subset", 6000}, {"test_subset", 2000}, {"trainer", {{"epochs", 3}}}};
  return {{"trainer", {{"epochs", 3}}}};
}

std::vector<FfRunSpec> ff_study_grid(const FfStudyPlan& plan) {
  for (const std::string& p : plan.parts)
    check(std::find(kFfParts.begin(), kFfParts.end(), p) != kFfParts.end(), kFourierformerPlan,
          "unknown part '{}' (lm, p, r, vit, code, medium, learned_r)", p);
  for (int64_t p : plan.ps) check(p >= 1 && p <= 16, kFourierformerPlan, "ablation power p={} outside 1..16", p);
  for (double r : plan.r_inits) check(std::isfinite(r) && r > 0, kFourierformerPlan, "ablation R init {} must be positive", r);
  for (double lr : plan.r_lrs) check(std::isfinite(lr) && lr > 0, kFourierformerPlan, "R's lr {} must be positive", lr);

  std::vector<FfRunSpec> grid;
  auto add = [&](FfTask task, const FfVariant& v, uint64_t seed, bool save) {
    for (const FfRunSpec& r : grid)
      if (r.task == task && r.variant.name() == v.name() && r.seed == seed) return;  // the main pair has it
    FfRunSpec run{.task = task, .variant = v, .seed = seed, .device = plan.common.device};
    run.task_config = ff_scale(plan, task);
    // Plain merges: the task checks the keys when the run merges them into its defaults.
    run.task_config.merge_patch(task == FfTask::Lm ? plan.lm : plan.vit);
    run.task_config.merge_patch(v.task_keys());
    if (v.medium) run.task_config.merge_patch(ff_medium_keys(plan));
    run.task_config["seed"] = seed;
    run.save_model = save;
    grid.push_back(std::move(run));
  };
  const std::vector<uint64_t> seeds = main_seeds(plan), ab_seeds = ablation_seeds(plan);
  const bool lm = has_part(plan, "lm"), p = has_part(plan, "p"), r = has_part(plan, "r");
  if (lm || p || r)  // the ablations' p = 4, R = 2 row is the main Fourier run
    for (uint64_t seed : lm ? seeds : ab_seeds) {
      const bool save = plan.save_models && seed == seeds.front();
      if (lm) add(FfTask::Lm, FfVariant{}, seed, save);
      add(FfTask::Lm, main_fourier(FfTask::Lm), seed, save);
    }
  if (p) {
    std::vector<int64_t> ps = plan.ps;
    if (ps.empty()) ps = plan.common.quick ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1, 2, 3, 6};
    for (int64_t power : ps)
      for (uint64_t seed : ab_seeds) add(FfTask::Lm, {.fourier = true, .p = power, .r_init = 2.0}, seed, false);
  }
  if (r) {
    std::vector<double> rs = plan.r_inits;
    if (rs.empty()) rs = {0.1, 0.5, 1.0, 3.0, 4.0};
    for (double r_init : rs)
      for (uint64_t seed : ab_seeds) add(FfTask::Lm, {.fourier = true, .p = 4, .r_init = r_init}, seed, false);
    if (plan.r_vector)
      for (uint64_t seed : ab_seeds)
        add(FfTask::Lm, {.fourier = true, .p = 4, .r_init = 2.0, .r_per_dim = true}, seed, false);
  }
  if (has_part(plan, "code"))  // the main Fourier run under each of the authors' code's settings
    for (uint64_t seed : seeds) {
      FfVariant eps = main_fourier(FfTask::Lm), log_r = main_fourier(FfTask::Lm);
      eps.eps = kAuthorsEps;
      log_r.log_r = true;
      add(FfTask::Lm, eps, seed, false);
      add(FfTask::Lm, log_r, seed, false);
    }
  if (has_part(plan, "learned_r")) {  // the main Fourier run with log R at its own lr (section 3's learnable R)
    std::vector<double> lrs = plan.r_lrs;
    if (lrs.empty()) lrs = {kFfLearnedRLr};
    for (uint64_t seed : seeds)
      for (double lr : lrs) {
        FfVariant learned = main_fourier(FfTask::Lm);
        learned.log_r = true;
        learned.r_lr = lr;
        add(FfTask::Lm, learned, seed, false);
      }
  }
  if (has_part(plan, "medium"))
    for (uint64_t seed : seeds) {
      FfVariant soft{.medium = true}, four = main_fourier(FfTask::Lm);
      four.medium = true;
      add(FfTask::Lm, soft, seed, false);
      add(FfTask::Lm, four, seed, false);
      // With the R part, the small model's best R_init at medium width too: the kernel multiplies
      // a sinc power per head dimension, so 32 dimensions make R_init 2 sharper than 16 do.
      if (r) {
        FfVariant wide = four;
        wide.r_init = 0.5;
        add(FfTask::Lm, wide, seed, false);
      }
    }
  if (has_part(plan, "vit"))
    for (uint64_t seed : seeds) {
      add(FfTask::Vit, FfVariant{}, seed, false);
      add(FfTask::Vit, main_fourier(FfTask::Vit), seed, false);
    }
  return grid;
}

std::string ff_run_label(const FfRunSpec& run) {
  return fmt::format("{} {} seed={}", run.task == FfTask::Lm ? "lm" : "vit", run.variant.name(), run.seed);
}

std::string ff_model_dir_name(const FfRunSpec& run) {
  std::string out;
  for (char c : ff_run_label(run)) {
    if (c == ' ') c = '-';
    if (c == '=') continue;
    out += c;
  }
  return out;
}

double ff_run_cost(const FfRunSpec& run) {
  // About seconds on one core of this machine (measured in the quick study: a 2-layer LM step
  // of 16 x 64 tokens 0.13 s with softmax and 2.3x that with Fourier attention; a 54000-image
  // ViT epoch 20 s with softmax, 3.6x with Fourier).
  const Json& c = run.task_config;
  auto get = [&](const char* key, double fallback) { return c.contains(key) ? c.at(key).get<double>() : fallback; };
  const Json trainer = c.value("trainer", Json::object());
  if (run.task == FfTask::Lm) {
    const double kernel = run.variant.fourier ? 2.3 : 1.0;
    const double steps = trainer.value("steps", 2000.0);
    return kernel * steps * get("batch_size", 16) * get("block_size", 128) * get("n_layer", 4) * 6.5e-5;
  }
  const double kernel = run.variant.fourier ? 3.6 : 1.0;
  const double images = c.value("train_subset", 0) > 0 ? get("train_subset", 0) : 54000.0;
  return kernel * trainer.value("epochs", 10.0) * images * get("depth", 4) * 9.3e-5;
}

Json ff_run_json(const FfRunSpec& run) {
  Json j = {{"task", ff_task_name(run.task)},
            {"variant", run.variant.name()},
            {"fourier", run.variant.fourier},
            {"p", run.variant.p},
            {"r_init", run.variant.r_init},
            {"r_per_dim", run.variant.r_per_dim},
            {"seed", run.seed},
            {"device", run.device},
            {"task_config", run.task_config},
            {"save_model", run.save_model}};
  if (run.variant.eps != 0.0) j["eps"] = run.variant.eps;  // only where set: older records stay as they are
  if (run.variant.log_r) j["log_r"] = true;
  if (run.variant.r_lr != 0.0) j["r_lr"] = run.variant.r_lr;
  if (run.variant.medium) j["medium"] = true;
  return j;
}

FfRunSpec ff_run_from_json(const Json& j) {
  return read_run_config(j, kFourierformerPlan, [&] {
    FfRunSpec run;
    const std::string task = j.at("task").get<std::string>();
    check(task == "kjv-lm" || task == "fashion-vit", kFourierformerPlan, "unknown task '{}'", task);
    run.task = task == "kjv-lm" ? FfTask::Lm : FfTask::Vit;
    run.variant = {.fourier = j.at("fourier").get<bool>(),
                   .p = j.at("p").get<int64_t>(),
                   .r_init = j.at("r_init").get<double>(),
                   .r_per_dim = j.at("r_per_dim").get<bool>(),
                   .eps = j.value("eps", 0.0),
                   .log_r = j.value("log_r", false),
                   .r_lr = j.value("r_lr", 0.0),
                   .medium = j.value("medium", false)};
    run.seed = j.at("seed").get<uint64_t>();
    run.device = j.at("device").get<std::string>();
    run.task_config = j.at("task_config");
    run.save_model = j.at("save_model").get<bool>();
    return run;
  });
}

}  // namespace hm::studies

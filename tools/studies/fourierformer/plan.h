// The FourierFormer paper's experiments (fourierformer.txt section 4 and Appendix D, Tables 1-5)
// as a grid of independent training runs on the registered tasks kjv-lm (WikiText-103's
// language modelling on the King James Bible) and fashion-vit (DeiT on ImageNet replaced by a
// small ViT on Fashion-MNIST): which attention variants, at which scale per mode, and the
// runs' labels and costs. One run: run.h; the report: report.h and figures.h; the
// registration: register.cpp.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using Json = nlohmann::json;

// The task a run trains: the language model or the vision transformer.
enum class FfTask { Lm, Vit };
const char* ff_task_name(FfTask task);  // "kjv-lm", "fashion-vit"

// An attention variant: softmax (dot product) or the generalised Fourier integral kernel with
// power p, bandwidth R initialised at r_init, one R per head dimension or a scalar per layer,
// and the authors' released code's settings: eps in A = K / (sum K + eps), R learned as log R.
struct FfVariant {
  bool fourier = false;
  int64_t p = 4;
  double r_init = 2.0;
  bool r_per_dim = false;
  double eps = 0.0;
  bool log_r = false;
  double r_lr = 0.0;    // R's own initial lr (the task's fourier_r_lr); 0: R at the model's lr
  bool medium = false;  // the paper's medium language model (d 256, context 1.5x the small's)

  // None of the authors'-code settings and the small model: the rows of Tables 1, 4 and 5.
  bool plain() const { return eps == 0.0 && !log_r && r_lr == 0.0 && !medium; }

  Json task_keys() const;       // {"attention": "fourier", "fourier_p": 4, ...}
  std::string name() const;     // "softmax", "fourier p=4 R=2", "... vector", "... eps=1e-06", "... logR",
                                // "... logR rlr=0.1", "... medium"
  std::string display() const;  // as the paper's tables name it: "FourierFormer, x^4, R_init 2"
};

// The parts of the study: the main language-model comparison (Table 1 and, from the same
// runs, Table 3's head redundancy), the p ablation (Table 4), the R ablation with the vector
// R row (Table 5), the vision transformer (Table 2), the main Fourier run under the authors'
// code's settings ("code": eps 1e-6 in the normalisation; R learned as log R), and the medium
// language model's softmax and Fourier pair (Table 1's second size), on the main seeds, and
// "learned_r": the main Fourier run with log R in its own optimiser group at each of r_lrs.
inline const std::vector<std::string> kFfParts = {"lm", "p", "r", "vit", "code", "medium", "learned_r"};
inline constexpr double kAuthorsEps = 1e-6;  // the released attention's sum + 1e-6
// The learned_r part's lr of log R: the lowest validation perplexity of the sweep on seed 1
// (README, "Learning R").
inline constexpr double kFfLearnedRLr = 0.003;

struct FfStudyPlan {
  // seeds: main runs and ViT; empty: {1} quick, {1, 2, 3, 4, 5} full (the paper's 5).
  // paper_scale: the paper's model sizes and step counts.
  StudyCommon common;
  std::vector<std::string> parts;        // subset of kFfParts; empty: all
  std::vector<int64_t> ps;               // the p ablation's powers besides 4 (the main runs' p)
  std::vector<double> r_inits;           // the R ablation's inits besides 2 (the main runs' R)
  std::vector<double> r_lrs;             // the learned_r part's lrs of log R; empty: {kFfLearnedRLr}
  bool r_vector = true;                  // the R ablation's "R is a vector" row
  std::vector<uint64_t> ablation_seeds;  // p and R ablations; empty: the seeds
  Json lm = Json::object(), vit = Json::object();  // task keys merged into every run of the task
  bool save_models = true;                         // keep the main runs' trained language models under DIR/models/
};

// One run of the grid.
struct FfRunSpec {
  FfTask task = FfTask::Lm;
  FfVariant variant;
  uint64_t seed = 1;
  std::string device = "cpu";
  Json task_config;         // overrides of the task's defaults (scale, variant, seed)
  bool save_model = false;  // write the trained model to DIR/models/<model_dir_name>
};

// The task keys every run of a task gets at the plan's scale (model size, data, steps).
Json ff_scale(const FfStudyPlan& plan, FfTask task);
// The medium language model's keys over ff_scale (the "medium" part's runs).
Json ff_medium_keys(const FfStudyPlan& plan);

// Every run of the plan: the main LM pairs, then the p and R ablations (runs the main pairs
// already hold are not repeated), then the ViT pairs; seed-major within each part.
std::vector<FfRunSpec> ff_study_grid(const FfStudyPlan& plan);

// "lm softmax seed=1", "lm fourier p=4 R=2 seed=1", "vit fourier p=4 R=1 seed=2".
std::string ff_run_label(const FfRunSpec& run);
// "lm-softmax-seed1": the directory a saved model goes to (letters, digits, '-', '.').
std::string ff_model_dir_name(const FfRunSpec& run);
// Relative cost (about seconds on one core here): steps x tokens per step x the attention's
// measured factor.
double ff_run_cost(const FfRunSpec& run);

Json ff_run_json(const FfRunSpec& run);
FfRunSpec ff_run_from_json(const Json& j);  // throws naming the missing or malformed key

}  // namespace hm::studies

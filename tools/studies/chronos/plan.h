// The Fourier head paper's Chronos study (Gillman et al., ICLR 2025, section 6, Appendix D.2,
// Tables 3 and 8, Figures 17 and 19) as a grid of training runs of the `chronos`
// task (tools/tasks/chronos_task.cpp): the linear head against Fourier heads with N frequencies
// (mixed binning, gamma 1e-6), Table 8's ablations (Fourier-550 without regularisation, with
// uniform binning), Figure 19's model sizes and Figure 18's training set sizes, each over seeds,
// at the scale of the mode. Data are generated (KernelSynth + TSMixup), not the paper's public
// data sets. One run: run.h; the report: report.h, data_sizes.h, figures.h.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using Json = nlohmann::json;

// A head of the grid: linear over uniform bins (Chronos), or Fourier with N frequencies,
// regularised (gamma 1e-6) over mixed-precision bins (the paper's), or one of Table 8's
// ablations of it.
struct ChronosHeadSpec {
  int64_t frequencies = 0;    // 0: the linear head
  bool regularized = true;    // Fourier: gamma 1e-6 (false: 0)
  bool mixed_binning = true;  // Fourier: mixed-precision bins (false: uniform); linear is always uniform
  bool fourier() const { return frequencies > 0; }
  bool ablation() const { return fourier() && (!regularized || !mixed_binning); }
  // "linear", "fourier-550", "fourier-550-noreg", "fourier-550-uniform"
  std::string name() const;
  Json task_keys() const;                                 // {"head", "binning", "fourier_frequencies", "fourier_gamma"}
  static ChronosHeadSpec parse(const std::string& name);  // inverse of name(); throws naming it
};

// A T5 size of Figure 19's sweep (the chronos task's model keys).
struct ChronosSize {
  std::string name;  // "d32", "d64", "d128", "mini" (t5-efficient-mini, the paper's 20M)
  int64_t d_model = 64, num_layers = 2, num_heads = 4, d_kv = 16, d_ff = 256;
  Json task_keys() const;
  static ChronosSize parse(const std::string& name);  // one of the names above; throws naming it
};

struct ChronosStudyPlan {
  // seeds: the rows' seeds; empty: {1, 2, 3}. paper_scale: the paper's model, context 512,
  // horizon 64, 200k steps of 256.
  StudyCommon common;
  std::vector<std::string> heads;     // Table 3/8 rows at the main size; empty: the mode's
  std::vector<std::string> sizes;     // Figure 19's other sizes (linear and the main Fourier head); empty: the mode's
  std::vector<uint64_t> sweep_seeds;  // the size sweep's seeds; empty: the rows' seeds
  // Figure 18: linear and the main Fourier head at the main size on this share of the training
  // series (KernelSynth and TSMixup alike; the held-out series stay); empty: 0.01 and 0.1 (full),
  // none (quick, paper scale). Its seeds: empty: 1 2 3 4, the paper's four.
  std::vector<double> data_fractions;
  std::vector<uint64_t> data_seeds;
  Json task = Json::object();  // chronos keys merged into every run
};

struct ChronosRunSpec {
  ChronosHeadSpec head;
  ChronosSize size;
  uint64_t seed = 1;
  std::string device = "cpu";
  Json task_config;            // overrides of the chronos task's defaults (scale, size, head, seed)
  double data_fraction = 1.0;  // Figure 18: the share of the mode's training series (1: all)
};

// The mode's main size, its other sizes and its heads.
ChronosSize chronos_main_size(const ChronosStudyPlan& plan);
// The chronos keys every run gets at the plan's scale (data, context, steps), without size or head.
Json chronos_scale(const ChronosStudyPlan& plan);
// The rows (heads x seeds, seed-major) at the main size, then the size sweep (linear and the
// largest plain Fourier head of the rows at each other size, on the sweep seeds), then the data
// sweep (the same two heads at the main size on each data fraction, on the data seeds).
std::vector<ChronosRunSpec> chronos_study_grid(const ChronosStudyPlan& plan);

std::string chronos_run_label(const ChronosRunSpec& run);  // "fourier-550 d64 seed=2", "linear d64 data=0.1 seed=1"
double chronos_run_cost(const ChronosRunSpec& run);        // steps x batch x tokens x width (relative)
Json chronos_run_json(const ChronosRunSpec& run);
ChronosRunSpec chronos_run_from_json(const Json& j);  // throws naming the missing or malformed key

}  // namespace hm::studies

// The FRU paper's experiments (fru.txt section 6, Figures 3-8, Tables 1-3, and Appendix D's
// frequency ranges, Figures 10-12) as a grid of
// independent training runs on the registered tasks fru-synthetic, fru-image and fru-text:
// which models on which data sets, at which scale per mode, and the runs' labels and costs.
// One run: run.h; the report: report.h and figures.h; the registration: register.cpp.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using Json = nlohmann::json;

// The parts of the study and the task that trains each; freq is Appendix D's frequency ranges
// of FRU on row and pixel images (fru-image).
enum class FruPart { Synthetic, Image, Text, Freq };
inline constexpr FruPart kFruParts[] = {FruPart::Synthetic, FruPart::Image, FruPart::Text, FruPart::Freq};
const char* fru_part_name(FruPart part);  // "synthetic", "image", "text", "freq"
FruPart parse_fru_part(const std::string& name);

// A model of the paper, as its tables name it, and the task keys that build it.
struct FruModel {
  std::string key;      // "fru60_10"
  std::string display;  // "FRU_{60,10}"
  Json task_keys;       // {"model": "fru", "fru_freqs": 60, "fru_dims": 10}
};
// The models of a part, in the paper's table order: synthetic RNN, LSTM, SRU, FRU_{120,5};
// image RNN, LSTM, SRU, FRU_{40,10}, FRU_{60,10}; text RNN, LSTM, SRU, FRU_{5,10}, FRU_{1,10};
// freq FRU_{5,10}, FRU_{10,10}, FRU_{20,10}, FRU_{60,10}.
const std::vector<FruModel>& fru_models(FruPart part);
const FruModel& find_fru_model(FruPart part, const std::string& key);  // throws when unknown

// The data sets of a part: synthetic mix-sin, mix-poly-5, mix-poly-10, mix-poly-15; image
// pixel, permuted, row; text kjv-genre; freq row, pixel.
const std::vector<std::string>& fru_datasets(FruPart part);

// The data set the gradient-over-time measurements (Figure 5: "mix-poly (5, 5)") train on.
inline constexpr const char* kFruGradDataset = "mix-poly-5";

// What the study runs. quick/full/paper_scale pick the scale (see fru_scale); parts and seeds
// narrow it.
struct FruStudyPlan {
  // seeds: empty: {1} (quick), {1, 2, 3} (full). paper_scale: the paper's data sizes and 100 epochs.
  StudyCommon common;
  std::vector<FruPart> parts;           // empty: synthetic, image, text, and freq but in quick mode
  std::vector<std::string> datasets;    // empty: every data set of the parts (quick: see the grid)
  std::vector<std::string> models;      // model keys; empty: every model of the parts
  // Each model's lr, staircase decay and clipping from the authors' released code (the paper
  // tunes them per model for the image and text runs); false: lr 1e-3, decay 0.9 for all.
  bool released_settings = true;
  // Task keys merged into every run of a part after its scale (e.g. {"size": 200, "trainer":
  // {"epochs": 1}} for synthetic), indexed by FruPart.
  Json overrides[4] = {Json::object(), Json::object(), Json::object(), Json::object()};
};

// The scale of one part in one mode: the task keys every run of the part gets (data sizes,
// sequence shortening, epochs), and the epochs at which Figure 5 is measured.
struct FruScale {
  Json task_keys;                     // merged into each run's task config
  std::vector<int64_t> grad_epochs;   // epochs after which to measure (0: before training)
  int64_t grad_batch = 0;             // training sequences in the measured batch
};
FruScale fru_scale(const FruStudyPlan& plan, FruPart part);

// One run of the grid.
struct FruRunSpec {
  FruPart part = FruPart::Synthetic;
  std::string dataset;  // one of fru_datasets(part)
  std::string model;    // a key of fru_models(part)
  uint64_t seed = 1;
  std::string device = "cpu";
  Json task_config;                  // overrides of the task's defaults (merged by the run)
  std::vector<int64_t> grad_epochs;  // Figure 5 measurements (empty: none)
  int64_t grad_batch = 0;
  std::string freq_range;  // part freq: the FRU's frequency range (FruFreqPoint::range); else ""
};

// A point of Appendix D's frequency ablation: FRU_{freqs,10} with 200 units on row or pixel
// images, its frequencies [0] + log-spaced from f_min to f_max given in units of the sequence
// length T: "0.25~T" (the paper's default), "0.25~T/10" (low only), "T/10~T" (high only) on rows
// (Figures 10, 11: 5, 10, 20 frequencies); "0.25~T" and "0.25~T/32" (T = 784: the paper's
// 0.25~25) on pixels (Figure 12: 10 and 60 frequencies).
struct FruFreqPoint {
  std::string dataset;
  int64_t freqs = 0;
  std::string range;
};
const std::vector<FruFreqPoint>& fru_freq_points();
// The range's (f_min, f_max) for sequence length T; throws naming an unknown range.
std::pair<double, double> fru_freq_bounds(const std::string& range, int64_t T);

// The released code's lr0 / lr_decay (staircase every 1000 steps) and
// gradient clipping of a model on a data set, as task keys ({} for the synthetic sets: the
// paper's lr 0.001 and decay 0.9 for all, which are the tasks' defaults).
Json released_settings(FruPart part, const std::string& dataset, const std::string& model);

// The task that trains a part: "fru-synthetic", "fru-image", "fru-text".
std::string fru_task_name(FruPart part);
// The metric the tables report: "test_mse" (synthetic) or "test_accuracy".
std::string fru_metric(FruPart part);

// Every run of the plan, part-major, then data set, model, seed.
std::vector<FruRunSpec> fru_study_grid(const FruStudyPlan& plan);

// "pixel fru60_10 seed=1", "row fru5_10 0.25~T/10 seed=1"; unique within a grid.
std::string fru_run_label(const FruRunSpec& run);
// Relative cost (optimizer steps x sequence length x a per-model factor measured on this
// machine): the slowest runs start first.
double fru_run_cost(const FruRunSpec& run);

Json fru_run_json(const FruRunSpec& run);
FruRunSpec fru_run_from_json(const Json& j);  // throws naming the missing or malformed key

}  // namespace hm::studies

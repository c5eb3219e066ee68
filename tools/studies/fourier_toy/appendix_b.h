// The Fourier head paper's Appendix B in the toy study's report: the smoothness metric checked
// on generated signals, no training. Table 4 (the L2 metric and the spectral entropy of four
// noise colours, with the L1 metric beside them) and Figure 6 (the L2 and L1 metrics over
// truncated square waves with more and more sine terms).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/data/smoothness_signals.h"
#include "harmonic/tools/report/stats.h"

namespace hm::studies {

using Json = nlohmann::json;

// Table 4's signals: 4096 samples (the length at which our L2 means and spreads match the
// table, tests/nn/test_density_metrics.cpp); the paper bootstraps 1000 trials, the report
// draws 100, and takes the L1 rows (50 inverse DFTs a signal, most of the report's time) over
// the first 10 of them.
inline constexpr int64_t kAppendixBNoiseSamples = 4096;
inline constexpr int64_t kAppendixBNoiseTrials = 100;
inline constexpr int64_t kAppendixBL1Trials = 10;
inline constexpr uint64_t kAppendixBSeed = 1234;
// Figure 6's square waves: 2048 samples per period (the paper's "sample rate of 2048Hz"),
// 1..100 sine terms (the paper sees L1 warp above 80).
inline constexpr int64_t kAppendixBWaveSamples = 2048;
inline constexpr int64_t kAppendixBWaveTerms = 100;

struct AppendixBNoise {
  data::NoiseColour colour = data::NoiseColour::White;
  report::MetricStats l2, l1, entropy;  // over the trials (l1: the first l1_trials)
};

struct AppendixB {
  int64_t noise_samples = 0, noise_trials = 0, l1_trials = 0;
  uint64_t seed = 0;
  std::vector<AppendixBNoise> noise;  // brown, pink, white, blue (data::kNoiseColours)
  int64_t wave_samples = 0;
  std::vector<double> wave_l2, wave_l1;  // [k - 1]: k sine terms
};

// Every colour is shaped from the same white draws (paired trials).
AppendixB compute_appendix_b(int64_t noise_trials = kAppendixBNoiseTrials, int64_t wave_terms = kAppendixBWaveTerms,
                             int64_t noise_samples = kAppendixBNoiseSamples,
                             int64_t wave_samples = kAppendixBWaveSamples, int64_t l1_trials = kAppendixBL1Trials);
// The defaults' result, computed once per process (every report shows the same section).
const AppendixB& appendix_b();

// The first k (1-based sine terms) at which values fall below the value before; 0 when the
// sequence rises throughout.
int64_t first_decrease(const std::vector<double>& values);

// "## Appendix B" of summary.md: Table 4 with the paper's L2 and spectral-entropy rows beside
// ours and our L1 rows, each step's sign against the desired "+"; Figure 6's monotonicity.
std::string appendix_b_markdown(const AppendixB& b);
Json appendix_b_json(const AppendixB& b);
// fig6_square_wave_l2 and fig6_square_wave_l1 (.svg, .png) in dir; returns the file names.
std::vector<std::string> write_appendix_b_figures(const std::string& dir, const AppendixB& b);

}  // namespace hm::studies

// The toy study's Appendix B section (see appendix_b.h).
#include "harmonic/tools/studies/fourier_toy/appendix_b.h"

#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <optional>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/dft.h"
#include "harmonic/ops/shape_views.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/plot.h"

namespace hm::studies {
namespace {

// Table 4 (1000 bootstrap trials): brown, pink, white, blue.
constexpr double kPaperL2[4][2] = {{0.0003, 0.0001}, {0.0017, 0.0002}, {0.0034, 0.0003}, {0.0038, 0.0003}};
constexpr double kPaperEntropy[4][2] = {{0.4516, 0.0894}, {0.3878, 0.0603}, {0.4266, 0.0614}, {0.4191, 0.0583}};

// "+" when the colour's mean rose from the smoother colour before it, else "-".
std::string delta_sign(double before, double now) { return now > before ? "+" : "-"; }

}  // namespace

int64_t first_decrease(const std::vector<double>& values) {
  for (size_t k = 1; k < values.size(); ++k)
    if (values[k] < values[k - 1]) return static_cast<int64_t>(k + 1);
  return 0;
}

AppendixB compute_appendix_b(int64_t noise_trials, int64_t wave_terms, int64_t noise_samples, int64_t wave_samples,
                             int64_t l1_trials) {
  check(noise_trials >= 1 && wave_terms >= 1 && noise_samples >= 4 && wave_samples >= 4, "compute_appendix_b",
        "needs trials, terms >= 1 and samples >= 4, got {}, {}, {}, {}", noise_trials, wave_terms, noise_samples,
        wave_samples);
  l1_trials = std::clamp<int64_t>(l1_trials, 1, noise_trials);
  AppendixB b{
      .noise_samples = noise_samples, .noise_trials = noise_trials, .l1_trials = l1_trials, .seed = kAppendixBSeed};
  Generator gen(kAppendixBSeed);
  const std::vector<double> white = randn({noise_trials, noise_samples}, {.dtype = DType::Float64}, &gen).to_vector();
  // Rows colour-major, each colour's first l1_trials also in a second block for the L1 metric:
  // one call per metric, so the Gaussian kernels' spectra are built once.
  std::vector<double> pmfs, firsts;
  std::vector<std::vector<double>> by_colour(4);
  for (int64_t i = 0; i < noise_trials; ++i) {
    std::vector<std::complex<double>> spectrum(white.begin() + i * noise_samples,
                                               white.begin() + (i + 1) * noise_samples);
    dft_inplace(spectrum);
    for (size_t c = 0; c < 4; ++c)
      for (double v : data::coloured_noise_pmf(spectrum, data::kNoiseColours[c])) by_colour[c].push_back(v);
  }
  for (size_t c = 0; c < 4; ++c) {
    pmfs.insert(pmfs.end(), by_colour[c].begin(), by_colour[c].end());
    firsts.insert(firsts.end(), by_colour[c].begin(), by_colour[c].begin() + l1_trials * noise_samples);
  }
  const Tensor rows = from_vector(pmfs, {4, noise_trials, noise_samples}, {.dtype = DType::Float64});
  const Tensor l1_rows = from_vector(firsts, {4, l1_trials, noise_samples}, {.dtype = DType::Float64});
  const Tensor l2 = nn::smoothness(rows), entropy = nn::spectral_entropy(rows),
               l1 = nn::smoothness(l1_rows, 100, nn::SmoothnessNorm::L1);
  for (int64_t c = 0; c < 4; ++c)
    b.noise.push_back({.colour = data::kNoiseColours[c],
                       .l2 = report::mean_std(select(l2, 0, c).to_vector()),
                       .l1 = report::mean_std(select(l1, 0, c).to_vector()),
                       .entropy = report::mean_std(select(entropy, 0, c).to_vector())});
  b.wave_samples = wave_samples;
  std::vector<double> waves;
  for (const std::vector<double>& wave : data::square_wave_pmfs(wave_terms, wave_samples))
    waves.insert(waves.end(), wave.begin(), wave.end());
  const Tensor waves_t = from_vector(waves, {wave_terms, wave_samples}, {.dtype = DType::Float64});
  b.wave_l2 = nn::smoothness(waves_t).to_vector();
  b.wave_l1 = nn::smoothness(waves_t, 100, nn::SmoothnessNorm::L1).to_vector();
  return b;
}

const AppendixB& appendix_b() {
  static const AppendixB b = compute_appendix_b();
  return b;
}

std::string appendix_b_markdown(const AppendixB& b) {
  std::string out = "\n## Appendix B: the smoothness metric on test signals (no training)\n\n";
  out += fmt::format(
      "Table 4: {} noises of {} samples per colour (seed {}, the four colours shaped from the same white draws), "
      "framed as pmfs (range-normalised to [0, 1], then to sum 1); mean ± population std over the trials, the L1 "
      "rows over the first {}. The paper bootstraps 1000 trials and prints no L1 rows (it compares L1 with L2 on "
      "the square waves of Figure 6). "
      "Spectral entropy: Equation B.2 over the one-sided frequencies above DC, in bits divided by log2 of their "
      "number (so white noise is near 1); the paper does not say how its values (0.39-0.45) were scaled, so compare "
      "the signs of the steps, not the levels. Desired: every step \"+\" (each colour sharper than the one "
      "before).\n\n",
      b.noise_trials, b.noise_samples, b.seed, b.l1_trials);
  std::vector<std::vector<std::string>> rows;
  auto add_rows = [&](const char* measure, auto field, const double(*paper)[2], int decimals) {
    for (size_t c = 0; c < b.noise.size(); ++c) {
      const report::MetricStats& s = b.noise[c].*field;
      std::optional<report::PaperValue> p;
      if (paper) p = report::PaperValue{paper[c][0], paper[c][1], "Table 4"};
      std::string diff = "n/a", sign = "n/a", paper_sign = "n/a";
      if (c > 0) {
        const double before = (b.noise[c - 1].*field).mean;
        diff = fmt::format("{:+.{}f}", s.mean - before, decimals);
        sign = delta_sign(before, s.mean);
        if (paper) paper_sign = delta_sign(paper[c - 1][0], paper[c][0]);
      }
      rows.push_back({measure, std::string(data::noise_colour_name(b.noise[c].colour)),
                      report::format_stats(s, decimals), report::format_paper(p, decimals), diff, sign,
                      paper ? paper_sign : "-", c > 0 ? "+" : "n/a"});
    }
  };
  add_rows("L2", &AppendixBNoise::l2, kPaperL2, 4);
  add_rows("L1", &AppendixBNoise::l1, nullptr, 4);
  add_rows("spectral entropy", &AppendixBNoise::entropy, kPaperEntropy, 4);
  out += report::markdown_table(
      {"measure", "noise", "ours", "paper", "diff", "delta", "paper's delta", "desired delta"}, rows);

  const int64_t terms = static_cast<int64_t>(b.wave_l2.size());
  auto monotone = [&](const std::vector<double>& v) {
    const int64_t k = first_decrease(v);
    return k == 0 ? fmt::format("rises at every step over 1..{} terms", terms)
                  : fmt::format("first falls at {} terms", k);
  };
  out += fmt::format(
      "\nFigure 6 (`fig6_square_wave_l2`, `fig6_square_wave_l1`): truncated square waves of 1..{} sine terms over "
      "{} samples, negative parts set to 0, normalised to sum 1. The L2 metric {}; the L1 metric {} (the paper: L1 "
      "warps above 80 sine waves).\n\n",
      terms, b.wave_samples, monotone(b.wave_l2), monotone(b.wave_l1));
  std::vector<std::vector<std::string>> wave_rows;
  for (int64_t k : {1, 2, 5, 10, 20, 40, 60, 80, 90, 100})
    if (k <= terms)
      wave_rows.push_back(
          {std::to_string(k), fmt::format("{:.5f}", b.wave_l2[k - 1]), fmt::format("{:.5f}", b.wave_l1[k - 1])});
  out += report::markdown_table({"sine terms", "L2", "L1"}, wave_rows);
  return out;
}

Json appendix_b_json(const AppendixB& b) {
  Json noise = Json::array();
  for (size_t c = 0; c < b.noise.size(); ++c) {
    const AppendixBNoise& n = b.noise[c];
    noise.push_back(
        {{"noise", data::noise_colour_name(n.colour)},
         {"l2", report::cell_json(n.l2, report::PaperValue{kPaperL2[c][0], kPaperL2[c][1], "Table 4"}, 4)},
         {"l1", report::stats_json(n.l1)},
         {"spectral_entropy",
          report::cell_json(n.entropy, report::PaperValue{kPaperEntropy[c][0], kPaperEntropy[c][1], "Table 4"}, 4)}});
  }
  return {{"noise_samples", b.noise_samples},
          {"noise_trials", b.noise_trials},
          {"l1_trials", b.l1_trials},
          {"seed", b.seed},
          {"noise", noise},
          {"square_wave",
           {{"samples", b.wave_samples},
            {"l2", b.wave_l2},
            {"l1", b.wave_l1},
            {"l2_first_decrease", first_decrease(b.wave_l2)},
            {"l1_first_decrease", first_decrease(b.wave_l1)}}}};
}

std::vector<std::string> write_appendix_b_figures(const std::string& dir, const AppendixB& b) {
  std::vector<std::string> written;
  std::vector<double> terms;
  for (size_t k = 1; k <= b.wave_l2.size(); ++k) terms.push_back(static_cast<double>(k));
  for (const auto& [name, values] :
       {std::pair<const char*, const std::vector<double>*>{"l2", &b.wave_l2}, {"l1", &b.wave_l1}}) {
    report::LinePlot p;
    p.title = fmt::format("Figure 6: {} smoothness of square waves ({} samples)",
                          name == std::string("l2") ? "L2" : "L1", b.wave_samples);
    p.x_label = "sine terms";
    p.y_label = "smoothness (lower is smoother)";
    p.series.push_back({name == std::string("l2") ? "L2 (Definition 3.2)" : "L1", terms, *values});
    for (std::string& f : report::save_svg_and_png(p, dir, fmt::format("fig6_square_wave_{}", name)))
      written.push_back(std::move(f));
  }
  return written;
}

}  // namespace hm::studies

// Figure 3 of the Fourier head paper: for each (mu, sigma), the histogram of each model's
// samples at its median-TVD seed, the ground-truth quantised Gaussian drawn over it.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/rng_lm/report.h"
#include "harmonic/tools/tasks/rng_lm_data.h"
#include "harmonic/tools/tasks/rng_lm_metrics.h"

namespace hm::studies {

std::vector<std::string> write_rng_figures(const std::string& dir, const std::vector<RngGroup>& groups) {
  std::vector<std::string> files;
  std::vector<double> edges, centres;
  for (int64_t k = 0; k <= train::kRngHistogramBins; ++k) edges.push_back(-1.0 + 0.1 * static_cast<double>(k));
  for (int64_t k = 0; k < train::kRngHistogramBins; ++k) centres.push_back(-0.95 + 0.1 * static_cast<double>(k));
  for (const RngGroup& g : groups) {
    for (size_t d = 0; d < 4; ++d) {
      // The median seed by TVD (the lower middle one for an even count).
      std::vector<size_t> order(g.results.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return g.tvd_paper[d].values[a] < g.tvd_paper[d].values[b];
      });
      const size_t median = order[(order.size() - 1) / 2];
      const Json& r = g.results[median].at("distributions")[d];
      report::BarPlot plot;
      const auto& dist = train::rng_distributions()[d];
      plot.title = fmt::format("{}: mean {} std {}, seed {} (median TVD {:.3f})", g.model,
                               train::format_two_decimals(dist.mu), train::format_two_decimals(dist.sigma),
                               g.seeds[median], r.at("tvd_paper").get<double>());
      plot.x_label = "sampled value";
      plot.y_label = "fraction of samples";
      plot.values = r.at("histogram").get<std::vector<double>>();
      plot.edges = edges;
      plot.bar_label = "samples";
      plot.overlay = {.label = "ground truth", .x = centres, .y = r.at("truth").get<std::vector<double>>(),
                      .markers = true};
      const std::string name = fmt::format("histogram_{}_d{}", g.model, d);
      for (const char* ext : {".svg", ".png"}) {
        report::save(plot, (std::filesystem::path(dir) / (name + ext)).string());
        files.push_back(name + ext);
      }
    }
  }
  return files;
}

}  // namespace hm::studies

#include "harmonic/tools/studies/decision_transformer/game_report.h"

#include <fmt/format.h>

#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/studies/decision_transformer/figures.h"
#include "harmonic/tools/studies/driver/summary_files.h"

namespace hm::studies {

std::vector<report::ClaimResult> dt_game_claims(const DtTable2Column& column, const std::vector<DtGroup>& groups) {
  std::vector<report::ClaimResult> claims = column.claims;
  // Figure 16 (as Figure 4): fewer frequencies, smoother pmfs; the smallest N against the largest.
  const DtGroup *lo = nullptr, *hi = nullptr;
  for (const DtGroup& g : groups)
    if (g.head.fourier()) {
      if (!lo) lo = &g;
      hi = &g;
    }
  if (lo && hi && lo != hi)
    claims.push_back(report::check_claim(
        fmt::format("{} smoother than {} (Figure 16, {})", lo->head.name(), hi->head.name(), column.paper.atari_name),
        lo->smoothness, hi->smoothness, report::less()));
  return claims;
}

namespace {

// Figure 16's panel as numbers: every head's return and smoothness, and how many N beat linear.
std::string dt_game_sweep_markdown(const std::vector<DtGroup>& groups) {
  std::string md =
      "| head | seeds | best-epoch normalised return | final normalised return | final return | pmf smoothness | "
      "val accuracy | params |\n|---|---|---|---|---|---|---|---|\n";
  const DtGroup* linear = nullptr;
  for (const DtGroup& g : groups) {
    if (!g.head.fourier()) linear = &g;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", g.head.name(), g.seeds.size(),
                      report::format_stats(g.best_normalized, 2), report::format_stats(g.final_normalized, 2),
                      report::format_stats(g.final_return, 1), report::format_stats(g.smoothness, 4),
                      report::format_stats(report::scaled(g.val_accuracy, 100), 1), g.params);
  }
  if (!linear) return md;
  size_t fourier = 0, above = 0, smoother = 0;
  std::string above_n;
  for (const DtGroup& g : groups) {
    if (!g.head.fourier()) continue;
    ++fourier;
    smoother += g.smoothness.mean < linear->smoothness.mean;
    if (g.best_normalized.mean > linear->best_normalized.mean) {
      ++above;
      above_n += fmt::format("{}{}", above_n.empty() ? "" : ", ", g.head.frequencies);
    }
  }
  md += fmt::format(
      "\nFigure 16's claim (the Fourier agent above linear while smoother): on the mean, {} of {} Fourier heads "
      "beat linear's best-epoch return of {:.2f}{}{}, and {} of {} have smoother pmfs than linear's {:.4f}.\n",
      above, fourier, linear->best_normalized.mean, above ? " (N = " : "", above ? above_n + ")" : "", smoother,
      fourier, linear->smoothness.mean);
  return md;
}

}  // namespace

std::string dt_game_summary_markdown(const std::vector<DtGroup>& all, const StudyInfo& info, int64_t main_frequencies,
                                     const std::string& game) {
  const std::vector<DtGroup> groups = dt_main_groups(all);
  const DtTable2Column column = dt_table2_column(groups, game, main_frequencies);
  const std::string& atari = column.paper.atari_name;
  std::string md =
      fmt::format("# Decision Transformer study on {} ({} mode)\n\n", atari, info.quick ? "quick" : "full");
  md += fmt::format(
      "The Fourier head paper's section 5 on our {} stand-in (data/arcade, game `{}`: the same 18 actions in the "
      "paper's order, a behaviour mixture of scripted policies for DQN-replay). Normalised return = 100 (R - random) "
      "/ (expert - random) with our random and scripted expert policies; the paper normalises Atari {} by its own "
      "references, so only the ordering of the heads compares.\n\n",
      atari, game, atari);
  if (!groups.empty())
    md += fmt::format("Reference returns: random {:.1f}, expert {:.1f}.\n\n", groups.front().random_return,
                      groups.front().expert_return);
  md += fmt::format("## Table 2, {} column\n\n", atari);
  md += dt_table2_game_markdown(column);
  md += fmt::format(
      "\nThe paper's Fourier row is its best head on {} (mean +- std over four seeds; the paper does not say which "
      "N); ours: the Fourier heads run on every seed, then the sweep's best on the mean. Best-epoch: each run's "
      "best evaluation (the paper's rollouts at the best epoch).\n\n",
      atari);
  md += fmt::format("## Figure 16, {} panel\n\n", atari);
  md += dt_game_sweep_markdown(groups);
  md += fmt::format(
      "\nFigures: `fig16_{0}_return_vs_frequencies` and `fig16_{0}_smoothness_vs_frequencies`; Figure 13's pmfs on "
      "held-out windows: `fig13_pmfs_window1..4`. Smoothness: Definition 3.2 on the predicted next-action pmfs (18 "
      "bins) at held-out windows' last step, lower is smoother.\n\n",
      game);
  md += "## Claims\n\n";
  md += report::claims_markdown(dt_game_claims(column, groups));
  return md;
}

StudyReport write_dt_game_study(const std::string& dir, const std::vector<DtRun>& runs, const StudyInfo& info,
                                int64_t main_frequencies, const std::string& game) {
  const std::vector<DtGroup> all = aggregate_dt_runs(runs);
  const std::vector<DtGroup> groups = dt_main_groups(all);
  const DtTable2Column column = dt_table2_column(groups, game, main_frequencies);
  const std::vector<report::ClaimResult> claims = dt_game_claims(column, groups);
  Json summary = dt_summary_json(all, info, main_frequencies);
  summary.erase("claims");  // Seaquest's Table 2 claims; this game's follow
  for (size_t i = 0; i < groups.size(); ++i)  // without Seaquest's paper values
    summary["heads"][i]["best_normalized_return"] = report::stats_json(groups[i].best_normalized);
  summary["game"] = game;
  summary["table2"] = dt_table2_json(column);
  summary["claims"] = report::claims_json(claims);
  return write_summary_files(
      dir, summary, dt_game_summary_markdown(all, info, main_frequencies, game),
      [&](const std::string& d) {
        std::vector<std::string> files;
        const std::string figure = "Figure 16 (" + column.paper.atari_name + ")";
        auto add = [&](const report::LinePlot& plot, const std::string& name) {
          if (plot.series.empty()) return;
          for (std::string& f : report::save_svg_and_png(plot, d, name)) files.push_back(std::move(f));
        };
        add(dt_frequency_plot(groups, "return", figure), fmt::format("fig16_{}_return_vs_frequencies", game));
        add(dt_frequency_plot(groups, "smoothness", figure), fmt::format("fig16_{}_smoothness_vs_frequencies", game));
        for (size_t w = 0; w < 4; ++w)
          add(dt_pmf_plot(groups, main_frequencies, w), fmt::format("fig13_pmfs_window{}", w + 1));
        return files;
      },
      claims);
}

}  // namespace hm::studies

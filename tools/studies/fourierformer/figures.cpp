#include "harmonic/tools/studies/fourierformer/figures.h"

#include <fmt/format.h>

#include <map>

namespace hm::studies {
namespace {

bool shows(FfFigure figure, const FfGroup& g) {
  const FfVariant& v = g.variant;
  switch (figure) {
    case FfFigure::Main:
    case FfFigure::TrainLoss:
      return g.task == FfTask::Lm && v.plain() && (!v.fourier || v.name() == "fourier p=4 R=2");
    case FfFigure::Powers:
      return g.task == FfTask::Lm && v.plain() && v.fourier && v.r_init == 2.0 && !v.r_per_dim;
    case FfFigure::RInits:
      return g.task == FfTask::Lm && v.plain() && v.fourier && v.p == 4;
    case FfFigure::RTrajectory:  // the R ablation's, and log R at its own lr
      return g.task == FfTask::Lm && v.fourier && v.p == 4 && (v.plain() || (v.r_lr != 0.0 && !v.medium));
    case FfFigure::Vit:
      return g.task == FfTask::Vit;
  }
  return false;
}

const report::CurveStats& curve_of(FfFigure figure, const FfGroup& g) {
  if (figure == FfFigure::TrainLoss) return g.train_loss;
  if (figure == FfFigure::RTrajectory) return g.r_curve;
  return g.curve;
}

}  // namespace

report::LinePlot ff_plot(const std::vector<FfGroup>& groups, FfFigure figure) {
  report::LinePlot plot;
  plot.x_label = "training step";
  plot.log_y = figure != FfFigure::Vit && figure != FfFigure::RTrajectory;
  const double scale = figure == FfFigure::Vit ? 100.0 : 1.0;  // accuracy in percent
  size_t seeds = 0;
  for (const FfGroup& g : groups) {
    if (!shows(figure, g)) continue;
    const report::CurveStats& c = curve_of(figure, g);
    if (c.x.empty()) continue;
    seeds = std::max(seeds, g.seeds.size());
    report::Series s;
    s.label =
        g.variant.name() + (g.diverged > 0 ? fmt::format(" (diverged: {}/{} seeds)", g.diverged, g.seeds.size()) : "");
    // The untrained LM's perplexity (about the vocabulary size) is left out: on a log axis it
    // squeezes the trained curves' differences into a few pixels.
    const bool skip_untrained = figure == FfFigure::Main || figure == FfFigure::Powers || figure == FfFigure::RInits;
    for (size_t i = 0; i < c.x.size(); ++i) {
      if (skip_untrained && c.x[i] == 0) continue;
      s.x.push_back(c.x[i]);
      s.y.push_back(scale * c.mean[i]);
      if (c.curves > 1) {
        s.y_low.push_back(scale * (c.mean[i] - c.std[i]));
        s.y_high.push_back(scale * (c.mean[i] + c.std[i]));
      }
    }
    s.markers = s.x.size() <= 12;
    plot.series.push_back(std::move(s));
  }
  const std::string over = fmt::format("{} seed{}", seeds, seeds == 1 ? "" : "s");
  // The figure's title (before its seed count) and y axis.
  static const std::map<FfFigure, std::pair<const char*, const char*>> kText = {
      {FfFigure::Main, {"KJV LM, softmax vs Fourier", "validation perplexity"}},
      {FfFigure::Powers, {"Table 4: phi(x) = x^p, R_init 2", "validation perplexity"}},
      {FfFigure::RInits, {"Table 5: R_init, x^4", "validation perplexity"}},
      {FfFigure::RTrajectory, {"Learned R, mean over layers", "R"}},
      {FfFigure::TrainLoss, {"KJV LM: training loss", "training cross-entropy (nats)"}},
      {FfFigure::Vit, {"Fashion-MNIST ViT", "test top-1 accuracy (%)"}}};
  const auto& [title, y_label] = kText.at(figure);
  plot.title = fmt::format("{} ({})", title, over);
  plot.y_label = y_label;
  return plot;
}

std::vector<std::string> write_ff_figures(const std::string& dir, const std::vector<FfGroup>& groups) {
  std::vector<std::string> written;
  const std::pair<FfFigure, const char*> figures[] = {
      {FfFigure::Main, "fig_lm_val_ppl"},         {FfFigure::Powers, "fig_p_ablation"},
      {FfFigure::RInits, "fig_r_ablation"},       {FfFigure::RTrajectory, "fig_r_learned"},
      {FfFigure::TrainLoss, "fig_lm_train_loss"}, {FfFigure::Vit, "fig_vit_accuracy"}};
  for (const auto& [figure, name] : figures)
    for (std::string& f : report::save_svg_and_png(ff_plot(groups, figure), dir, name)) written.push_back(std::move(f));
  return written;
}

}  // namespace hm::studies

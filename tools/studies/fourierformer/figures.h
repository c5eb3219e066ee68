// The FourierFormer study's figures (tools/report/plot.h), as SVG and PNG: validation
// perplexity against the step for softmax against Fourier attention (Table 1's runs), for the
// powers p (Table 4) and the R inits (Table 5); the learned R against the step (the R inits and
// log R at its own lr); the training loss; the ViT's test accuracy. One line per variant: the mean over seeds with a ± std band.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/fourierformer/report.h"

namespace hm::studies {

// Which groups a figure shows.
enum class FfFigure { Main, Powers, RInits, RTrajectory, TrainLoss, Vit };

// Empty series when none of the figure's groups ran.
report::LinePlot ff_plot(const std::vector<FfGroup>& groups, FfFigure figure);

// Writes fig_lm_val_ppl, fig_p_ablation, fig_r_ablation, fig_r_learned, fig_lm_train_loss and
// fig_vit_accuracy (those with data); returns the file names.
std::vector<std::string> write_ff_figures(const std::string& dir, const std::vector<FfGroup>& groups);

}  // namespace hm::studies

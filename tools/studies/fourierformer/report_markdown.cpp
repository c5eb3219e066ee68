// summary.md of the FourierFormer study: Table 1 (perplexity, softmax against Fourier), Table 4
// (the power p), Table 5 (R_init, R a vector), Table 3 (head redundancy), Table 2 (the vision
// transformer), each beside the paper's numbers, then the claims (on the means and seed by
// seed), the scale that ran, the throughput and the run times.
#include <fmt/format.h>

#include <cmath>

#include "harmonic/tools/report/format.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/studies/fourierformer/report.h"

namespace hm::studies {
namespace {

std::string paper_cell(const std::optional<report::PaperValue>& p, bool not_converged = false) {
  if (not_converged) return "not converge";
  return p ? fmt::format("{:.2f}", p->mean) : "-";
}

// Perplexity with its seed spread; a diverged seed shows how many and where.
std::string ppl_cell(const FfGroup& g, const report::MetricStats& s) {
  std::string cell = report::format_stats(s, 2);
  if (g.diverged > 0) {
    std::string steps;
    for (int64_t st : g.diverged_steps) steps += fmt::format("{}{}", steps.empty() ? "" : ", ", st);
    cell += fmt::format(" (diverged {}/{} seeds, at step {})", g.diverged, g.seeds.size(), steps);
  }
  return cell;
}

std::string params_cell(int64_t n) { return fmt::format("{:.3f}M", static_cast<double>(n) / 1e6); }

// "mean ± std over layers" with the seed spread of the layer mean, as Table 3 prints it.
std::string heads_cell(const report::MetricStats& mean, const report::MetricStats& layer_std) {
  if (mean.count == 0 || std::isnan(mean.mean)) return "-";
  std::string cell = fmt::format("{:.2f} ± {:.2f}", mean.mean, layer_std.mean);
  if (mean.count > 1) cell += fmt::format(" (seed std of the mean {:.2f})", mean.std);
  return cell;
}

std::string r_cell(const FfGroup& g) {
  if (!g.variant.fourier || g.r_final.count == 0) return "-";
  return report::format_stats(g.r_final, 3);
}

// The scale keys of a group's runs ("n_layer=4, block_size=128, steps=3000"), variant keys left out.
std::string scale_line(const FfGroup& g) {
  std::string out;
  for (const auto& [k, v] : g.task_config.items()) {
    if (k == "seed" || k == "attention" || k.starts_with("fourier_")) continue;
    if (k == "trainer") {
      for (const auto& [tk, tv] : v.items()) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", tk, tv.dump());
      continue;
    }
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v.dump());
  }
  return out;
}

using RowFilter = bool (*)(const FfGroup&);

std::string ppl_table(const std::vector<FfGroup>& groups, RowFilter keep) {
  std::vector<std::vector<std::string>> rows;
  for (const FfGroup& g : groups) {
    if (g.task != FfTask::Lm || !keep(g)) continue;
    const FfPaperRow paper = paper_ff_row(g.task, g.variant);
    const std::string selected = ff_selected_note(groups, g.variant);
    rows.push_back({g.variant.display() + (selected.empty() ? "" : " (" + selected + ")"),
                    fmt::format("{}", g.seeds.size()), ppl_cell(g, g.val_ppl),
                    ppl_cell(g, g.test_ppl), r_cell(g), params_cell(g.params), paper_cell(paper.val, paper.diverged),
                    paper_cell(paper.test, paper.diverged)});
  }
  if (rows.empty()) return "";
  return report::markdown_table({"attention", "seeds", "val PPL (ours)", "test PPL (ours)", "learned R (final)",
                                 "params", "paper val PPL", "paper test PPL"},
                                rows);
}

const FfGroup* first_lm(const std::vector<FfGroup>& groups) {
  for (const FfGroup& g : groups)
    if (g.task == FfTask::Lm) return &g;
  return nullptr;
}

// Softmax or the main Fourier setting (x^4, R_init 2, a scalar R), without the authors' code's settings.
bool is_main_pair(const FfVariant& v) {
  return v.eps == 0.0 && !v.log_r && (!v.fourier || (v.p == 4 && v.r_init == 2.0 && !v.r_per_dim));
}

std::string lm_section(const std::vector<FfGroup>& groups) {
  const FfGroup* any = first_lm(groups);
  if (!any) return "";
  std::string out = fmt::format(
      "## Language modelling (section 4.1, Table 1)\n\n"
      "Word-level language modelling of the King James Bible (data/kjv_corpus.h: chapter blocks of every book held "
      "out for validation and test) stands in for WikiText-103 (not available here): a corpus about 100 times "
      "smaller, a vocabulary of 8192 words (the rest <unk>) and a smaller model, so the perplexities are not "
      "comparable to the paper's, only the orderings are. Pre-norm GPT decoder, sinusoidal positions, Adam, "
      "warmup and cosine decay, clip 0.25; both attentions have the same seeds, data order and steps. Perplexity: "
      "exp(mean token NLL) over non-overlapping windows of the held-out stream. Scale: {}.\n\n",
      scale_line(*any));
  out += ppl_table(groups, [](const FfGroup& g) { return is_main_pair(g.variant) && !g.variant.medium; });
  const std::string medium =
      ppl_table(groups, [](const FfGroup& g) { return g.variant.medium; });
  if (!medium.empty())
    out +=
        "\nThe medium model (the paper's d 256, 8 heads of 32, context 1.5x the small's; same depth, steps and "
        "seeds as the small here):\n\n" +
        medium;
  return out + "\nFigures: fig_lm_val_ppl (validation perplexity per evaluation), fig_lm_train_loss.\n";
}

std::string powers_section(const std::vector<FfGroup>& groups) {
  const std::string table = ppl_table(groups, [](const FfGroup& g) {
    return g.variant.plain() && g.variant.fourier && g.variant.r_init == 2.0 && !g.variant.r_per_dim;
  });
  bool ablation = false;
  for (const FfGroup& g : groups)
    ablation |= g.task == FfTask::Lm && g.variant.plain() && g.variant.fourier && g.variant.p != 4;
  if (!ablation) return "";
  return "## The power p of phi(x) = x^p (Appendix D.1, Table 4)\n\n"
         "Odd p makes the kernel's normaliser a signed sum (Remark 3.1: not a density), implemented as the paper's "
         "kernel, not refused or clamped; a run whose loss turns NaN or infinite is recorded as diverged at that "
         "step and its final perplexity is nan. Figure: fig_p_ablation.\n\n" +
         table;
}

std::string r_section(const std::vector<FfGroup>& groups) {
  bool ablation = false;
  for (const FfGroup& g : groups)
    ablation |= g.task == FfTask::Lm && g.variant.plain() && g.variant.fourier && g.variant.p == 4 &&
                (g.variant.r_init != 2.0 || g.variant.r_per_dim);
  if (!ablation) return "";
  return "## The initial bandwidth R (Appendix D.2, Table 5)\n\n"
         "R is learned (one scalar per layer, or one per head dimension in the vector row); the column 'learned R' is "
         "its final mean over layers (and dimensions). R_init 0.5 is ours (not in the paper), the row marked selected: "
         "the lowest validation perplexity of the R_init values, picked after the runs, where softmax had no "
         "comparable tuning. Figures: fig_r_ablation, fig_r_learned.\n\n" +
         ppl_table(groups, [](const FfGroup& g) { return g.variant.plain() && g.variant.fourier && g.variant.p == 4; });
}

std::string code_section(const std::vector<FfGroup>& groups) {
  bool any = false;
  for (const FfGroup& g : groups) any |= g.task == FfTask::Lm && (g.variant.eps != 0.0 || g.variant.log_r);
  if (!any) return "";
  return "## The authors' released code's settings\n\n"
         "The main Fourier run with the released attention's normalisation A = K / (sum K + 1e-6), and with R learned "
         "as log R, beside the main pair: does either change Table 1's ordering? (Claims below.)\n\n" +
         ppl_table(groups, [](const FfGroup& g) {
           const FfVariant& v = g.variant;
           return !v.medium && !v.r_per_dim && v.r_lr == 0.0 && (!v.fourier || (v.p == 4 && v.r_init == 2.0));
         });
}

// Each layer's R over training for the runs that learn log R at its own lr: mean ± std over seeds at
// every evaluation, and the final R's move from R_init.
std::string r_layers_table(const FfGroup& g) {
  if (g.r_layer_curves.empty()) return "";
  const std::vector<double>& steps = g.r_layer_curves.front().x;
  std::vector<std::string> header = {"layer"};
  for (double st : steps) header.push_back(fmt::format("R at step {:g}", st));
  header.push_back("final R - R_init");
  std::vector<std::vector<std::string>> rows;
  for (size_t l = 0; l < g.r_layer_curves.size(); ++l) {
    const report::CurveStats& c = g.r_layer_curves[l];
    std::vector<std::string> row = {fmt::format("{}", l)};
    for (size_t i = 0; i < steps.size(); ++i)
      row.push_back(i < c.mean.size() ? fmt::format("{:.3f} ± {:.3f}", c.mean[i], c.std[i]) : "-");
    const report::MetricStats& f = g.r_layer_final[l];
    row.push_back(fmt::format("{:+.3f} ± {:.3f}", f.mean - g.variant.r_init, f.std));
    rows.push_back(std::move(row));
  }
  return fmt::format("{} ({} seed{}):\n\n{}", g.variant.display(), g.seeds.size(), g.seeds.size() == 1 ? "" : "s",
                     report::markdown_table(header, rows));
}

std::string learned_r_section(const std::vector<FfGroup>& groups) {
  std::string layers;
  for (const FfGroup& g : groups)
    if (g.task == FfTask::Lm && g.variant.r_lr != 0.0) layers += "\n" + r_layers_table(g);
  if (layers.empty()) return "";
  return "## A learned R at its own learning rate\n\n"
         "The main Fourier run with R learned as log R in an optimiser group of its own (task key fourier_r_lr: that "
         "initial lr, no weight decay, the model's warmup and cosine schedule), beside softmax, the main Fourier run "
         "and log R at the model's lr. R is one scalar per layer, shared by the layer's heads (the paper's). The "
         "lr was chosen on seed 1's validation perplexity (the README's sweep). Figure: fig_r_learned.\n\n" +
         ppl_table(groups,
                   [](const FfGroup& g) {
                     const FfVariant& v = g.variant;
                     return !v.medium && !v.r_per_dim && v.eps == 0.0 &&
                            (!v.fourier || (v.p == 4 && v.r_init == 2.0));
                   }) +
         "\nEach layer's R (mean ± std over seeds at each evaluation):\n" + layers;
}

std::string heads_section(const std::vector<FfGroup>& groups) {
  std::vector<std::vector<std::string>> rows;
  for (const FfGroup& g : groups) {
    if (g.task != FfTask::Lm || !g.variant.plain() || (g.variant.fourier && g.variant.name() != "fourier p=4 R=2"))
      continue;
    auto paper = [&](const char* split) {
      auto p = paper_ff_heads(g.variant, split);
      return p ? fmt::format("{:.2f} ± {:.2f}", p->mean, p->std) : std::string("-");
    };
    rows.push_back({g.variant.display(), fmt::format("{}", g.seeds.size()),
                    heads_cell(g.train_heads, g.train_heads_layer_std),
                    heads_cell(g.test_heads, g.test_heads_layer_std), paper("train"), paper("test")});
  }
  if (rows.empty()) return "";
  return "## Head redundancy (section 4.3, Table 3)\n\n"
         "The L2 distance ||O_h - O_g||_F between two heads' outputs (N x D_v) of one window, averaged over head "
         "pairs and a fixed batch of windows (nn::head_redundancy), per layer; the cell is the layer-average mean ± "
         "the std over layers (each averaged over seeds), as the paper's table. Larger: less redundant heads.\n\n" +
         report::markdown_table({"attention", "seeds", "train (ours)", "test (ours)", "paper train", "paper test"},
                                rows);
}

std::string vit_section(const std::vector<FfGroup>& groups) {
  std::vector<std::vector<std::string>> rows;
  const FfGroup* any = nullptr;
  for (const FfGroup& g : groups) {
    if (g.task != FfTask::Vit) continue;
    any = any ? any : &g;
    const FfPaperRow paper = paper_ff_row(g.task, g.variant);
    const report::MetricStats top1 = report::scaled(g.top1, 100), top5 = report::scaled(g.top5, 100);
    rows.push_back({g.variant.display(), fmt::format("{}", g.seeds.size()), report::format_stats(top1, 2),
                    report::format_stats(top5, 2), params_cell(g.params), paper_cell(paper.val),
                    paper_cell(paper.test)});
  }
  if (!any) return "";
  return fmt::format(
      "## Image classification (section 4.2, Table 2)\n\n"
      "A small ViT (models/vit.h: patch embedding, class token, learned positions, pre-norm blocks) on "
      "Fashion-MNIST stands in for DeiT-tiny on ImageNet (not available here): 10 classes instead of 1000, so top-5 "
      "is near 100% and top-1 is the informative column. Fourier R init 1 (the paper's for images). Scale: {}. "
      "Figure: fig_vit_accuracy.\n\n{}",
      scale_line(*any),
      report::markdown_table(
          {"attention", "seeds", "top-1 % (ours)", "top-5 % (ours)", "params", "paper top-1 (DeiT)", "paper top-5"},
          rows));
}

std::string timing_section(const std::vector<FfGroup>& groups, const StudyInfo& info) {
  std::vector<std::vector<std::string>> rows;
  for (const FfGroup& g : groups)
    rows.push_back({ff_task_name(g.task), g.variant.name(), fmt::format("{}", g.seconds.count),
                    report::format_duration(g.seconds.mean),
                    fmt::format("{:.0f} {}", g.items_per_second.mean, g.task == FfTask::Lm ? "tokens/s" : "images/s")});
  return fmt::format(
      "## Run times\n\nMode {}, {} parallel runs of one thread each, wall time {} (2-core VM; the throughput "
      "includes the evaluations).\n\n{}",
      info.quick ? "quick" : "full", info.jobs, report::format_duration(info.wall_seconds),
      report::markdown_table({"task", "attention", "seeds", "mean time per run", "training throughput"}, rows));
}

}  // namespace

std::string ff_summary_markdown(const std::vector<FfGroup>& groups, const StudyInfo& info) {
  std::string out =
      "# FourierFormer study (Nguyen et al. 2022): `harmonic study fourierformer`\n\n"
      "Our data sets stand in for the paper's: the King James Bible (word level) for WikiText-103, Fashion-MNIST "
      "for ImageNet. Models are scaled to a 2-core machine (the paper's configuration: `--set paper_scale=true`). "
      "Means ± population std over seeds; claims are checked on the means and seed by seed.\n\n";
  for (const std::string& section : {lm_section(groups), powers_section(groups), r_section(groups),
                                     code_section(groups), learned_r_section(groups), heads_section(groups),
                                     vit_section(groups)})
    if (!section.empty()) out += section + "\n";
  out += "## Claims\n\n" + report::claims_markdown(ff_claims(groups)) + "\n";
  out += timing_section(groups, info);
  return out;
}

}  // namespace hm::studies

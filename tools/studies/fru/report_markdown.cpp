// summary.md of the FRU study: the synthetic test MSEs (Figures 3-4 print no numbers), the
// gradient-over-time decay behind Figure 5, Tables 1-3 with the paper's MNIST / IMDB numbers
// beside ours on Fashion-MNIST / KJV genres, the claims (on the means and seed by seed), the
// scale that ran and the run times.
#include <fmt/format.h>

#include <cmath>

#include "harmonic/tools/report/format.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/studies/fru/frequency_ranges.h"
#include "harmonic/tools/studies/fru/report.h"

namespace hm::studies {
namespace {

// "1.234e-03 ± 2.0e-04" (one seed: no spread).
std::string sci_cell(const report::MetricStats& s) {
  if (s.count == 0) return "-";
  if (std::isnan(s.mean)) return "nan";
  if (s.count == 1) return fmt::format("{:.3e}", s.mean);
  return fmt::format("{:.3e} ± {:.1e}", s.mean, s.std);
}

// Accuracy in percent, two decimals as the paper prints it.
std::string percent_cell(const report::MetricStats& s) { return report::format_stats(report::scaled(s, 100), 2); }

std::string paper_accuracy_cell(const std::optional<report::PaperValue>& p) { return p ? fmt::format("{:.2f}", p->mean) : "-"; }

std::string kparams(int64_t n) { return fmt::format("{:.1f}K", static_cast<double>(n) / 1000.0); }

const std::string& display(const FruGroup& g) { return find_fru_model(g.part, g.model).display; }

// The scale keys of a part's runs as "size=1000, epochs=8" (the model keys and seed left out).
std::string scale_line(const FruGroup& g) {
  std::string out;
  for (const auto& [k, v] : g.task_config.items()) {
    if (k == "seed" || k == "model" || k == "data" || k == "degree" || k.starts_with("fru_")) continue;
    if (k == "trainer") {
      for (const auto& [tk, tv] : v.items()) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", tk, tv.dump());
      continue;
    }
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v.dump());
  }
  return out;
}

// "lr 0.005, decay 0.9, clip 1" from a run's task keys (the task defaults where absent: lr
// 0.001, decay 0.9, no clipping).
std::string optimizer_cell(const FruGroup& g) {
  const Json& c = g.task_config;
  const Json trainer = c.contains("trainer") ? c.at("trainer") : Json::object();
  std::string out = fmt::format("{:g} / {:g}", c.value("lr", 1e-3), trainer.value("lr_decay", 0.9));
  if (trainer.value("clip_grad_norm", 0.0) > 0)
    out += fmt::format(" / clip {:g}", trainer.at("clip_grad_norm").get<double>());
  return out;
}

// The scale keys without the per-model optimizer settings (shown per row).
std::string scale_without_optimizer(const FruGroup& g) {
  FruGroup copy = g;
  copy.task_config.erase("lr");
  if (copy.task_config.contains("trainer")) {
    copy.task_config["trainer"].erase("lr_decay");
    copy.task_config["trainer"].erase("clip_grad_norm");
  }
  return scale_line(copy);
}

const FruGroup* first_of(const std::vector<FruGroup>& groups, FruPart part) {
  for (const FruGroup& g : groups)
    if (g.part == part) return &g;
  return nullptr;
}

std::string synthetic_section(const std::vector<FruGroup>& groups) {
  const FruGroup* any = first_of(groups, FruPart::Synthetic);
  if (!any) return "";
  std::vector<std::string> header = {"Model", "Parameters"};
  std::vector<std::string> sets;
  for (const std::string& d : fru_datasets(FruPart::Synthetic))
    for (const FruGroup& g : groups)
      if (g.dataset == d) {
        sets.push_back(d), header.push_back(d + " test MSE");
        break;
      }
  std::vector<std::vector<std::string>> rows;
  for (const FruModel& m : fru_models(FruPart::Synthetic)) {
    std::vector<std::string> row = {m.display, "-"};
    for (const std::string& d : sets) {
      const FruGroup* g = find_fru_group(groups, d, m.key);
      if (g) row[1] = fmt::format("{}", g->params);
      row.push_back(g ? sci_cell(g->metric) : "-");
    }
    rows.push_back(std::move(row));
  }
  // fru-synthetic's target: next (ours) or sequence (the authors' released code's task).
  const bool sequence = any->task_config.value("target", "next") == "sequence";
  return fmt::format(
      "## Synthetic series (section 6.1, Figures 3-4)\n\n"
      "{} on Algorithm 1-2 series (T = 176, K = 5 components); the test MSE after the last epoch, "
      "mean ± std over seeds. The paper shows these as curves only (no numbers); its claim is FRU orders of "
      "magnitude below the others. Scale: {}.\n\n{}",
      sequence ? "The authors' released task, steps 1..175 regressed at once from the last step's output,"
               : "Next-step prediction",
      scale_line(*any), report::markdown_table(header, rows));
}

std::string gradient_section(const std::vector<FruGroup>& groups) {
  std::vector<std::vector<std::string>> rows;
  for (const FruModel& m : fru_models(FruPart::Synthetic)) {
    const FruGroup* g = find_fru_group(groups, kFruGradDataset, m.key);
    if (!g || g->grads.empty()) continue;
    for (const FruGradCurve& c : g->grads) {
      const bool last = &c == &g->grads.back();
      rows.push_back({m.display, fmt::format("{}", c.epoch), fmt::format("{:.3e}", c.l2.front()),
                      fmt::format("{:.3e}", c.l2.back()), fmt::format("{:.3e}", c.l2.back() / c.l2.front()),
                      last ? sci_cell(g->grad_decay) : ""});
    }
  }
  if (rows.empty()) return "";
  return fmt::format(
      "## Gradient flow over time (Figure 5)\n\n"
      "L2 norm of d (yhat_t - y_t)^2 / d h0 on a fixed batch of {} training series, averaged over windows of 20 "
      "steps (first window t = 0-19, last window up to t = 174), mean over seeds; last/first is the decay over the "
      "sequence (1: flat). The last column is that ratio per seed (mean ± std) at the last measured epoch, which "
      "the claims use. Figures fig5_<model>_<norm> draw every window at every measured epoch (L1, L2, Linf). "
      "The paper's Figure 5 SRU uses alphas {{0, .25, .5, .9, .95}}; ours keeps the study's {{0, .25, .5, .9, "
      ".99}}.\n\n{}",
      kFruGradDataset,
      report::markdown_table(
          {"Model", "epoch", "L2 first window", "L2 last window", "last/first", "last/first per seed"}, rows));
}

// Tables 1 / 2 / 3 and the row table: accuracy beside the paper's, parameters beside its.
std::string accuracy_table(const std::vector<FruGroup>& groups, FruPart part, const std::string& dataset,
                           bool with_params) {
  std::vector<std::vector<std::string>> rows;
  const FruGroup* lstm = find_fru_group(groups, dataset, "lstm");
  for (const FruModel& m : fru_models(part)) {
    const FruGroup* g = find_fru_group(groups, dataset, m.key);
    if (!g) continue;
    std::vector<std::string> row = {m.display, percent_cell(g->metric), paper_accuracy_cell(paper_fru_accuracy(dataset, m.key)),
                                    optimizer_cell(*g)};
    if (with_params) {
      const int64_t own = g->params - g->embedding_params;
      const auto paper_k = paper_fru_kparams(dataset, m.key);
      const auto paper_lstm_k = paper_fru_kparams(dataset, "lstm");
      row.push_back(kparams(own));
      row.push_back(paper_k ? fmt::format("{:.0f}K", *paper_k) : "-");
      row.push_back(lstm ? fmt::format("{:.2f}", static_cast<double>(own) /
                                                     static_cast<double>(lstm->params - lstm->embedding_params))
                         : "-");
      row.push_back(paper_k && paper_lstm_k ? fmt::format("{:.2f}", *paper_k / *paper_lstm_k) : "-");
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return "";
  std::vector<std::string> header = {"Model", "accuracy % (ours)", "paper %", "lr / decay / clip"};
  if (with_params) header.insert(header.end(), {"parameters", "paper", "ratio to LSTM", "paper ratio"});
  return report::markdown_table(header, rows);
}

std::string image_section(const std::vector<FruGroup>& groups) {
  const FruGroup* any = first_of(groups, FruPart::Image);
  if (!any) return "";
  std::string out = fmt::format(
      "## Image sequences (sections 6.2-6.3, Tables 1-2, Figures 6-7)\n\n"
      "Fashion-MNIST stands in for MNIST (not available here): a harder data set, so our accuracies sit below the "
      "paper's at any scale; compare orderings, not levels. "
      "Test accuracy after the last epoch, mean ± std over seeds. Scale: {}.\n\n",
      scale_without_optimizer(*any));
  if (std::string t = accuracy_table(groups, FruPart::Image, "pixel", true); !t.empty())
    out += "### Pixel by pixel (Table 1)\n\n" + t + "\n";
  if (std::string t = accuracy_table(groups, FruPart::Image, "permuted", false); !t.empty())
    out += "### Permuted pixels (Table 2)\n\n" + t + "\n";
  if (std::string t = accuracy_table(groups, FruPart::Image, "row", false); !t.empty())
    out += "### Row by row (Appendix D's 28-step setting; the paper tabulates no baselines)\n\n" + t + "\n";
  return out;
}

std::string text_section(const std::vector<FruGroup>& groups) {
  const FruGroup* any = first_of(groups, FruPart::Text);
  if (!any) return "";
  return fmt::format(
      "## Text classification (section 6.4, Table 3, Figure 8)\n\n"
      "KJV passages of about 300 words labelled with one of 6 book genres (data/kjv_genre.h) stand in for IMDB's 2 "
      "sentiment classes (not available here): chance is about 27% (the largest class) against IMDB's 50%. "
      "Parameters exclude the word embedding, as the paper's counts do (TFLearn's embedding layer is separate); "
      "ours have a 6-way classifier, the paper's a 2-way one. Scale: {}.\n\n{}\n",
      scale_without_optimizer(*any), accuracy_table(groups, FruPart::Text, "kjv-genre", true));
}

std::string timing_section(const std::vector<FruGroup>& groups, const StudyInfo& info) {
  std::vector<std::vector<std::string>> rows;
  for (const FruGroup& g : groups)
    rows.push_back({g.dataset, g.freq_range.empty() ? display(g) : display(g) + " " + g.freq_range,
                    fmt::format("{}", g.seconds.count), report::format_duration(g.seconds.mean)});
  return fmt::format("## Run times\n\nMode {}, {} parallel runs of one thread each, wall time {} (2-core VM).\n\n{}",
                     info.quick ? "quick" : "full", info.jobs, report::format_duration(info.wall_seconds),
                     report::markdown_table({"data set", "model", "seeds", "mean time per run"}, rows));
}

}  // namespace

std::string fru_summary_markdown(const std::vector<FruGroup>& groups, const StudyInfo& info) {
  std::string out =
      "# FRU study (Zhang et al. 2018): `harmonic study fru`\n\n"
      "Our data sets stand in for the paper's (Fashion-MNIST for MNIST, KJV genres for IMDB, generated series as "
      "in the paper). Adam with a staircase lr (lr0 * decay^(step // 1000)): the synthetic runs use the "
      "paper's lr 0.001 and decay 0.9; the image and text runs each model's lr, decay and clipping from the authors' "
      "released code (the paper tunes them per model), shown per row as lr / decay / clip.\n\n";
  for (const std::string& section : {synthetic_section(groups), gradient_section(groups), image_section(groups),
                                     text_section(groups), fru_freq_markdown(groups)})
    if (!section.empty()) out += section + "\n";
  out += "## Claims\n\n" + report::claims_markdown(fru_claims(groups)) + "\n";
  out += timing_section(groups, info);
  return out;
}

}  // namespace hm::studies

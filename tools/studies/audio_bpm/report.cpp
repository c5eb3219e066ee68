#include "harmonic/tools/studies/audio_bpm/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/data/metronome.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/seed_groups.h"
#include "harmonic/tools/studies/audio_bpm/figures.h"
#include "harmonic/tools/studies/driver/summary_files.h"

namespace hm::studies {
namespace {

constexpr const char* kAudioBpmReport = "study audio-bpm report";

const BpmGroup* linear_group(const std::vector<BpmGroup>& groups) {
  for (const BpmGroup& g : groups)
    if (!g.head.fourier()) return &g;
  return nullptr;
}

}  // namespace

std::vector<BpmRun> bpm_runs_of(const std::vector<RunRecord>& records) {
  return evaluated_runs_of<HeadRunSpec>(records, [](const Json& c) { return head_run_from_json(c, kBpmStudy); },
                                        kAudioBpmReport, {"params", "curve", "final"});
}

std::vector<BpmGroup> aggregate_bpm_runs(const std::vector<BpmRun>& runs) {
  std::vector<BpmGroup> groups;
  auto by_head = report::group_over_seeds(
      runs, [](const BpmRun& r) { return r.spec.head.frequencies; }, [](const BpmRun& r) { return r.spec.seed; },
      [](const BpmRun& r) { return bpm_run_label(r.spec); }, kAudioBpmReport);
  for (const auto& members : by_head) {
    const BpmRun& first = members.first();
    BpmGroup& g = groups.emplace_back(BpmGroup{.head = first.spec.head, .task_config = first.spec.task_config});
    g.seeds = members.seeds;
    auto final_number = [](const char* key) {
      return [key](const BpmRun& r) { return report::number_or_nan(r.result.at("final"), key); };
    };
    g.accuracy = members.stats(final_number("accuracy"));
    g.macro_f1 = members.stats(final_number("macro_f1"));
    g.within_one = members.stats(final_number("within_one_accuracy"));
    g.smoothness = members.stats(final_number("smoothness"));
    g.loss = members.stats(final_number("loss"));
    g.predicted_classes = members.stats(final_number("predicted_classes"));
    g.seconds = members.stats([](const BpmRun& r) { return r.seconds; });
    g.params = first.result.at("params").get<int64_t>();
    const Json& f = first.result.at("final");
    if (f.contains("example_pmfs"))
      for (const Json& row : f.at("example_pmfs")) g.example_pmfs.push_back(row.get<std::vector<double>>());
    if (f.contains("example_labels")) g.example_labels = f.at("example_labels").get<std::vector<int64_t>>();
    if (f.contains("example_bpm")) g.example_bpm = f.at("example_bpm").get<std::vector<int64_t>>();
  }
  std::sort(groups.begin(), groups.end(),
            [](const BpmGroup& a, const BpmGroup& b) { return a.head.frequencies < b.head.frequencies; });
  return groups;
}

std::vector<report::ClaimResult> bpm_claims(const std::vector<BpmGroup>& groups) {
  std::vector<report::ClaimResult> claims;
  const BpmGroup* linear = linear_group(groups);
  if (!linear) return claims;
  for (const BpmGroup& g : groups)
    if (g.head.fourier())
      claims.push_back(report::check_claim(fmt::format("{} macro F1 > linear (Appendix C.1: +118%)", g.head.name()),
                                           g.macro_f1, linear->macro_f1, report::greater()));
  for (const BpmGroup& g : groups)
    if (g.head.fourier())
      claims.push_back(report::check_claim(fmt::format("{} pmfs smoother than linear (Figure 7)", g.head.name()),
                                           g.smoothness, linear->smoothness, report::less()));
  return claims;
}

Json bpm_summary_json(const std::vector<BpmGroup>& groups, const StudyInfo& info) {
  std::vector<const report::MetricStats*> secs;
  for (const BpmGroup& g : groups) secs.push_back(&g.seconds);
  Json out = summary_header("audio-bpm", info, secs);
  const BpmGroup* linear = linear_group(groups);
  Json heads = Json::array();
  for (const BpmGroup& g : groups) {
    Json h = {{"head", g.head.name()},
              {"frequencies", g.head.frequencies},
              {"seeds", g.seeds},
              {"params", g.params},
              {"accuracy", report::stats_json(g.accuracy)},
              {"macro_f1", report::stats_json(g.macro_f1)},
              {"within_one_accuracy", report::stats_json(g.within_one)},
              {"smoothness", report::stats_json(g.smoothness)},
              {"loss", report::stats_json(g.loss)},
              {"predicted_classes", report::stats_json(g.predicted_classes)},
              {"task_config", g.task_config}};
    if (linear && g.head.fourier())
      h["macro_f1_change_vs_linear"] = report::number_or_null(g.macro_f1.mean / linear->macro_f1.mean - 1.0);
    heads.push_back(h);
  }
  out["heads"] = heads;
  out["bins"] = {{"count", data::kMetronomeBins},
                 {"width_bpm", data::kMetronomeBinWidth},
                 {"first", data::kMetronomeMinBpm},
                 {"last_bin", "[205, 210]"}};
  out["paper"] = {{"source", "fourier-head.txt Appendix C.1"}, {"macro_f1_change_fourier_vs_linear", 1.18}};
  out["claims"] = report::claims_json(bpm_claims(groups));
  return out;
}

std::string bpm_summary_markdown(const std::vector<BpmGroup>& groups, const StudyInfo& info) {
  std::string md = fmt::format("# Audio tempo study ({} mode)\n\n", info.quick ? "quick" : "full");
  md +=
      "The Fourier head paper's Appendix C.1 on generated metronome clips (data/metronome.h: click trains at integer "
      "tempos 50..210 BPM with random click shape, pitch, decay, level, noise and offset) in place of its metronome "
      "audio, and a small spectrogram transformer trained from scratch in place of the AudioSet-pretrained AST. "
      "32 classes of 5 BPM ([50, 54], ..., [200, 204], [205, 210]). Test metrics at the end of training, mean ± std "
      "over seeds.\n\n";
  const BpmGroup* linear = linear_group(groups);
  md +=
      "| head | seeds | accuracy % | macro F1 | F1 vs linear | within one bin % | pmf smoothness | test loss | "
      "classes predicted | params |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BpmGroup& g : groups) {
    std::string change = "";
    if (linear && g.head.fourier())
      change = fmt::format("{:+.0f}%", 100 * (g.macro_f1.mean / linear->macro_f1.mean - 1.0));
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", g.head.name(), g.seeds.size(),
                      report::format_stats(report::scaled(g.accuracy, 100), 1), report::format_stats(g.macro_f1, 3),
                      change, report::format_stats(report::scaled(g.within_one, 100), 1),
                      report::format_stats(g.smoothness, 4), report::format_stats(g.loss, 3),
                      report::format_stats(g.predicted_classes, 1), g.params);
  }
  md +=
      "\nThe paper: the Fourier head's F1 is +118% over the linear head's (its best model used one frequency; "
      "Figure 7 shows two). Macro F1 is scikit-learn's macro average; smoothness is Definition 3.2 on the "
      "predicted pmfs over the 32 bins, lower is smoother. Classes predicted: how many of the 32 bins the "
      "argmax picks for some test clip.\n\n## Claims\n\n";
  md += report::claims_markdown(bpm_claims(groups));
  return md;
}

StudyReport write_bpm_study(const std::string& dir, const std::vector<BpmRun>& runs, const StudyInfo& info) {
  const std::vector<BpmGroup> groups = aggregate_bpm_runs(runs);
  return write_summary_files(
      dir, bpm_summary_json(groups, info), bpm_summary_markdown(groups, info),
      [&](const std::string& d) { return write_bpm_figures(d, groups); }, bpm_claims(groups));
}

}  // namespace hm::studies

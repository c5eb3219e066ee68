#include "harmonic/tools/studies/rng_lm/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "harmonic/core/error.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/report/format.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/studies/driver/summary_files.h"
#include "harmonic/tools/studies/rng_lm/plan.h"
#include "harmonic/tools/tasks/rng_lm_data.h"

namespace hm::studies {
namespace {

constexpr const char* kRngLmReport = "study rng-lm";
// The paper's Figure 3 caption: LoRA improves the base model's TVD by about 2.07x, the Fourier head by 4.86x.
constexpr double kPaperTokenFactor = 2.07, kPaperFourierFactor = 4.86;

std::string model_title(const std::string& m) {
  if (m == "base") return "(a) base model";
  if (m == "token") return "(b) LoRA, token head";
  if (m == "fourier") return "(c) LoRA, Fourier head";
  if (m == "token-long") return "(b') LoRA, token head, longer training";
  return "(c') LoRA, Fourier head, longer training";
}

const RngGroup* find_group(const std::vector<RngGroup>& groups, const std::string& model) {
  for (const RngGroup& g : groups)
    if (g.model == model) return &g;
  return nullptr;
}

std::string dist_name(size_t d) {
  if (d == 4) return "mean of the four";
  const auto& x = train::rng_distributions()[d];
  return fmt::format("({}, {})", train::format_two_decimals(x.mu), train::format_two_decimals(x.sigma));
}

// Per-seed ratio base / other of the mean TVD (paired by seed).
report::MetricStats factor(const RngGroup& base, const RngGroup& other) {
  std::vector<uint64_t> seeds;
  std::vector<double> values;
  const report::MetricStats& a = base.tvd_paper[4];
  const report::MetricStats& b = other.tvd_paper[4];
  for (size_t i = 0; i < b.seeds.size(); ++i)
    if (auto av = a.at_seed(b.seeds[i])) {
      seeds.push_back(b.seeds[i]);
      values.push_back(*av / b.values[i]);
    }
  return report::seed_stats(seeds, values);
}

}  // namespace

std::vector<RngGroup> rng_groups_of(const std::vector<RunRecord>& records) {
  std::vector<RngGroup> groups;
  for (const std::string& model : rng_models()) {
    RngGroup g;
    g.model = model;
    std::vector<std::vector<double>> tp(5), t1(5), un(5), inv(5);
    std::vector<double> loss, secs;
    for (const RunRecord& r : records) {
      if (r.config.at("model") != model) continue;
      try {
        g.seeds.push_back(r.config.at("seed").get<uint64_t>());
        const Json& ds = r.result.at("distributions");
        check(ds.size() == 4, kRngLmReport, "run '{}' has {} distributions, expected 4", r.label, ds.size());
        for (size_t d = 0; d < 4; ++d) {
          tp[d].push_back(ds[d].at("tvd_paper").get<double>());
          t1[d].push_back(ds[d].at("tvd_l1").get<double>());
          un[d].push_back(ds[d].at("unique").get<double>());
          inv[d].push_back(ds[d].at("invalid").get<double>() / ds[d].at("samples").get<double>());
        }
        tp[4].push_back(r.result.at("tvd_paper").get<double>());
        t1[4].push_back(r.result.at("tvd_l1").get<double>());
        un[4].push_back(r.result.at("unique").get<double>());
        inv[4].push_back(r.result.at("invalid").get<double>() / ds[0].at("samples").get<double>());
        if (!r.result.at("train").is_null()) loss.push_back(r.result.at("train").at("loss_after").get<double>());
        secs.push_back(r.seconds);
        g.results.push_back(r.result);
      } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("[{}] run '{}' has a malformed record: {}", kRngLmReport, r.label, e.what()));
      }
    }
    if (g.seeds.empty()) continue;
    for (size_t d = 0; d < 5; ++d) {
      g.tvd_paper.push_back(report::seed_stats(g.seeds, tp[d]));
      g.tvd_l1.push_back(report::seed_stats(g.seeds, t1[d]));
      g.unique.push_back(report::seed_stats(g.seeds, un[d]));
      g.invalid.push_back(report::seed_stats(g.seeds, inv[d]));
    }
    if (!loss.empty()) g.loss_after = report::seed_stats(g.seeds, loss);
    g.seconds = report::seed_stats(g.seeds, secs);
    groups.push_back(std::move(g));
  }
  return groups;
}

std::vector<report::ClaimResult> rng_claims(const std::vector<RngGroup>& groups) {
  std::vector<report::ClaimResult> claims;
  const RngGroup* base = find_group(groups, "base");
  for (const char* suffix : {"", "-long"}) {
    const RngGroup* token = find_group(groups, std::string("token") + suffix);
    const RngGroup* fourier = find_group(groups, std::string("fourier") + suffix);
    const std::string tag = *suffix ? " (longer training)" : "";
    if (token && fourier) {
      claims.push_back(report::check_claim("Fourier head TVD < token head TVD" + tag, fourier->tvd_paper[4],
                                           token->tvd_paper[4], report::less()));
      claims.push_back(report::check_claim("Fourier head unique samples > token head" + tag, fourier->unique[4],
                                           token->unique[4], report::greater()));
      for (size_t d = 0; d < 4; ++d)
        claims.push_back(report::check_claim("  ... TVD on " + dist_name(d) + tag, fourier->tvd_paper[d],
                                             token->tvd_paper[d], report::less()));
    }
    if (base && token)
      claims.push_back(report::check_claim("LoRA token head TVD < base model TVD" + tag, token->tvd_paper[4],
                                           base->tvd_paper[4], report::less()));
    if (base && fourier)
      claims.push_back(report::check_claim("LoRA Fourier head TVD < base model TVD" + tag, fourier->tvd_paper[4],
                                           base->tvd_paper[4], report::less()));
  }
  return claims;
}

std::string rng_summary_markdown(const std::vector<RngGroup>& groups, const StudyInfo& info, const Json& base_info) {
  std::string md = fmt::format("# RNG-LM study ({} mode)\n\n", info.quick ? "quick" : "full");
  md +=
      "The Fourier head paper's section 4.2 / Appendix C.4 at this machine's scale: a character-level GPT "
      "pretrained on the KJV (verses prefixed with chapter:verse; no decimal number ever occurs in it) stands in "
      "for Llama-3.1-8B-Instruct; LoRA (rank and alpha in the config) on every attention projection and "
      "feed-forward linear; 256 training pairs, 64 per (mu, sigma). TVD (paper) = 0.5 max_k |p_k - q_k|, TVD (L1) "
      "= 0.5 sum_k |p_k - q_k| over 20 bins of [-1, 1]; the empirical histogram divides by all samples drawn, so "
      "invalid samples (unparseable or outside [-1, 1]) count as missing mass. Lower TVD is better; more unique "
      "samples is better.\n\n";
  if (base_info.is_object())
    md += fmt::format(
        "Base model: {} parameters, {} characters of vocabulary, {} training characters, {} steps, validation "
        "perplexity {:.2f} per character, pretrained in {}.\n\n",
        base_info.value("parameters", 0), base_info.value("vocab", 0), base_info.value("train_tokens", 0),
        base_info.at("config").at("trainer").at("steps").get<int64_t>(), base_info.value("val_ppl", NAN),
        report::format_duration(base_info.value("seconds", 0.0)));
  for (size_t d = 0; d < 5; ++d) {
    md += fmt::format("## (mu, sigma) = {}\n\n", dist_name(d));
    std::vector<std::vector<std::string>> rows;
    for (const RngGroup& g : groups)
      rows.push_back({model_title(g.model), report::format_stats(g.tvd_paper[d], 3), report::format_stats(g.tvd_l1[d], 3),
                      report::format_stats(g.unique[d], 1), report::format_stats(report::scaled(g.invalid[d], 100), 1),
                      std::to_string(g.seeds.size())});
    md += report::markdown_table({"model", "TVD (paper, 0.5 L-inf)", "TVD (0.5 L1)", "unique samples", "invalid %",
                                  "seeds"},
                                 rows) +
          "\n";
  }
  md += "## Improvement over the base model (TVD (paper) of the base / of the model, per seed)\n\n";
  std::vector<std::vector<std::string>> rows;
  if (const RngGroup* base = find_group(groups, "base"))
    for (const RngGroup& g : groups) {
      if (g.model == "base") continue;
      const bool four = g.model.starts_with("fourier");
      rows.push_back({model_title(g.model), report::format_stats(factor(*base, g), 2),
                      fmt::format("{:.2f}x", four ? kPaperFourierFactor : kPaperTokenFactor)});
    }
  md += report::markdown_table({"model", "ours", "paper (Figure 3)"}, rows) + "\n";
  md += "## Claims\n\n" + report::claims_markdown(rng_claims(groups)) + "\n";
  rows.clear();
  for (const RngGroup& g : groups)
    rows.push_back({model_title(g.model), g.loss_after.count ? report::format_stats(g.loss_after, 3) : "-",
                    report::format_stats(g.seconds, 1)});
  md += "## Training\n\n" + report::markdown_table({"model", "final training loss", "run seconds"}, rows) + "\n";
  md += fmt::format("Wall time {} with {} jobs (2-core VM shared with other builds).\n",
                    report::format_duration(info.wall_seconds), info.jobs);
  return md;
}

StudyReport write_rng_study(const ReportInput& in) {
  const std::vector<RngGroup> groups = rng_groups_of(in.records);
  Json base_info = nullptr;
  const auto info_path = std::filesystem::path(in.records_dir) / "base_model.json";
  if (std::filesystem::exists(info_path)) {
    std::ifstream info_file(info_path);
    base_info = parse_json(info_file, "study rng-lm", fmt::format("'{}'", info_path.string()));
  }
  std::vector<const report::MetricStats*> seconds;
  for (const RngGroup& g : groups) seconds.push_back(&g.seconds);
  Json summary = summary_header("rng-lm", in.info, seconds);
  summary["base_model"] = base_info;
  for (const RngGroup& g : groups) {
    Json j = {{"model", g.model}, {"seeds", g.seeds}};
    for (size_t d = 0; d < 5; ++d)
      j["distributions"].push_back({{"name", dist_name(d)},
                                    {"tvd_paper", report::stats_json(g.tvd_paper[d])},
                                    {"tvd_l1", report::stats_json(g.tvd_l1[d])},
                                    {"unique", report::stats_json(g.unique[d])},
                                    {"invalid_fraction", report::stats_json(g.invalid[d])}});
    summary["groups"].push_back(j);
  }
  const auto claims = rng_claims(groups);
  summary["claims"] = report::claims_json(claims);
  return write_summary_files(in.dir, summary, rng_summary_markdown(groups, in.info, base_info),
                             [&](const std::string& d) { return write_rng_figures(d, groups); }, claims, 60);
}

}  // namespace hm::studies

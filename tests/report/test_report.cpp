// Tests of tools/report's study-report pieces: statistics over seeds, the paper-spread flag,
// claims checked on means and seed by seed, markdown tables and their JSON.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/helpers.h"
#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/seed_groups.h"
#include "harmonic/tools/report/stats.h"

using namespace hm;
using namespace hm::report;
using hm::test::throws_with;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("report seed groups: runs grouped by configuration in first-appearance order, seeds kept, repeats refused") {
  struct Run {
    std::string model;
    uint64_t seed;
    double score;
  };
  const std::vector<Run> runs{{"lstm", 1, 0.5}, {"fru", 1, 0.9}, {"lstm", 2, 0.7}, {"fru", 3, 1.1}, {"rnn", 1, 0.1}};
  auto key = [](const Run& r) { return r.model; };
  auto seed = [](const Run& r) { return r.seed; };
  auto label = [](const Run& r) { return r.model; };
  const auto groups = group_over_seeds(runs, key, seed, label, "test report");
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].first().model == "lstm");
  CHECK(groups[1].first().model == "fru");
  CHECK(groups[2].first().model == "rnn");
  CHECK(groups[0].seeds == std::vector<uint64_t>{1, 2});
  CHECK(groups[1].seeds == std::vector<uint64_t>{1, 3});
  const MetricStats fru = groups[1].stats([](const Run& r) { return r.score; });
  CHECK(fru.mean == doctest::Approx(1.0));
  CHECK(fru.at_seed(3) == 1.1);
  CHECK(fru.count == 2);

  std::vector<Run> repeated = runs;
  repeated.push_back({"fru", 3, 2.0});
  CHECK(throws_with([&] { group_over_seeds(repeated, key, seed, label, "test report"); },
                    {"[test report]", "'fru' has seed 3 twice"}));
  CHECK(group_over_seeds(std::vector<Run>{}, key, seed, label, "test report").empty());
}

TEST_CASE("report stats: population std over seeds, values kept by seed, mean curves") {
  const MetricStats s = seed_stats({1, 2, 3, 42}, {1.0, 2.0, 4.0, 5.0});
  CHECK(s.mean == doctest::Approx(3.0));
  // numpy.std([1, 2, 4, 5]) = sqrt((4 + 1 + 1 + 4) / 4) = sqrt(2.5)
  CHECK(s.std == doctest::Approx(std::sqrt(2.5)));
  CHECK(s.count == 4);
  CHECK(s.at_seed(42) == 5.0);
  CHECK(!s.at_seed(7));
  CHECK(std::isnan(mean_std({1.0, kNaN}).std));
  CHECK(mean_std({}).count == 0);
  CHECK(mean_std({3.0, 4.0}).at_seed(1) == 4.0);  // keyed by position
  CHECK(throws_with([] { seed_stats({1, 1}, {0.0, 1.0}); }, {"seed_stats", "seed 1 appears twice"}));
  CHECK(throws_with([] { seed_stats({1}, {0.0, 1.0}); }, {"seed_stats", "1 seeds for 2 values"}));
  const Json j = stats_json(seed_stats({1, 2}, {0.5, kNaN}));
  CHECK(j["mean"].is_null());
  CHECK(j["seeds"] == Json::array({1, 2}));
  CHECK(j["values"][1].is_null());

  // x = 3 is missing in the second curve: left out. At x = 1: mean of 1 and 3, std 1.
  const CurveStats c = mean_curve({{{1, 1.0}, {2, 2.0}, {3, 9.0}}, {{1, 3.0}, {2, 2.0}}});
  CHECK(c.curves == 2);
  CHECK(c.x == std::vector<double>{1, 2});
  CHECK(c.mean == std::vector<double>{2.0, 2.0});
  CHECK(c.std == std::vector<double>{1.0, 0.0});
  CHECK(mean_curve({}).x.empty());
}

TEST_CASE("report paper cells: the outside-the-paper's-spread flag") {
  const PaperValue p{0.116, 0.043, "Table 1"};  // spread [0.073, 0.159]
  auto one = [](double v) { return seed_stats({1}, {v}); };
  CHECK(!outside_paper(one(0.116), p));
  CHECK(!outside_paper(one(0.073), p));   // the bounds are inside
  CHECK(!outside_paper(one(0.1594), p));  // shown as 0.159: inside, as the cell reads
  CHECK(outside_paper(one(0.1596), p));   // shown as 0.160
  CHECK(outside_paper(one(0.05), p));
  CHECK(outside_paper(one(kNaN), p));      // a diverged run is flagged
  CHECK(!outside_paper(mean_std({}), p));  // nothing measured: nothing to flag
  CHECK(measured_cell(seed_stats({1, 2}, {0.108, 0.110}), p) == "0.109 ± 0.001");
  CHECK(measured_cell(seed_stats({1, 2}, {0.20, 0.22}), p) == "0.210 ± 0.010 †");
  CHECK(measured_cell(one(0.2), p) == "0.200 †");  // one seed: no ±
  CHECK(measured_cell(one(0.2), std::nullopt) == "0.200");
  CHECK(measured_cell(mean_std({}), p) == "-");
  CHECK(format_paper(p) == "0.116 ± 0.043");
  CHECK(format_paper(std::nullopt) == "-");
  CHECK(outside_rule_note().find("† ") == 0);
  const Json j = cell_json(one(0.2), p);
  CHECK(j["outside_paper"] == true);
  CHECK(j["paper"]["source"] == "Table 1");
  CHECK(j["paper"]["std"].get<double>() == doctest::Approx(0.043));
  CHECK(!cell_json(one(0.2), std::nullopt).contains("outside_paper"));
}

TEST_CASE("report claims: held on the means and on 3 of 4 seeds paired by seed") {
  // Seeds given in different orders: pairing is by seed, not by position. Seed 42 fails (0.30 > 0.25).
  const MetricStats fourier = seed_stats({1, 2, 3, 42}, {0.10, 0.12, 0.11, 0.30});
  const MetricStats linear = seed_stats({42, 3, 2, 1}, {0.25, 0.20, 0.20, 0.20});
  const ClaimResult c = check_claim("Fourier KL < linear KL", fourier, linear);
  CHECK(c.holds);  // means 0.1575 < 0.2125
  CHECK(c.seeds_holding == 3);
  CHECK(c.seeds_total == 4);
  CHECK(seeds_fraction(c) == "3/4 seeds");
  CHECK(c.detail == "0.1575 < 0.2125");
  const ClaimResult g = check_claim("linear KL > Fourier KL", linear, fourier, greater());
  CHECK(g.holds);
  CHECK(g.seeds_holding == 3);
  CHECK(g.detail == "0.2125 > 0.1575");
  // A custom predicate; seeds only one side has are not counted.
  const Comparison within{"≈", [](double a, double b) { return std::fabs(a - b) < 0.05; }};
  const ClaimResult w = check_claim("close", seed_stats({1, 2, 9}, {0.2, 0.5, 0.2}), linear, within);
  CHECK(w.seeds_total == 2);
  CHECK(w.seeds_holding == 1);
  CHECK(w.detail.find(" ≈ ") != std::string::npos);
  // A NaN mean never holds.
  CHECK(!check_claim("nan", seed_stats({1}, {kNaN}), linear).holds);

  const std::string md = claims_markdown({c, w});
  CHECK(md.find("| claim | holds on mean | seeds | means |") != std::string::npos);
  CHECK(md.find("| Fourier KL < linear KL | **yes** | 3/4 seeds | 0.1575 < 0.2125 |") != std::string::npos);
  CHECK(md.find("| close | **no** | 1/2 seeds |") != std::string::npos);
  CHECK(claims_markdown({}).find("no claims") != std::string::npos);
  // The printed verdict says in words whether the claim holds, and marks a single seed.
  CHECK(claim_verdict(c) == "holds on the mean (0.1575 < 0.2125), 3/4 seeds");
  const ClaimResult one_seed =
      check_claim("Fourier KL < linear KL", seed_stats({1}, {0.1263}), seed_stats({1}, {0.0988}));
  CHECK(claim_verdict(one_seed) == "does not hold: mean 0.1263 vs 0.0988, needs <; 0/1 seeds (a single seed)");
  CHECK(claim_verdict(w) == "does not hold: mean 0.3000 vs 0.2125, needs ≈; 1/2 seeds");
  const std::string marked = claims_markdown({c, one_seed}, true);
  CHECK(marked.find("| Fourier KL < linear KL | **no** (single seed) | 0/1 seeds | 0.1263 < 0.0988 |") !=
        std::string::npos);
  CHECK(marked.find("| **yes** | 3/4 seeds |") != std::string::npos);  // four seeds: unmarked
  const Json j = claims_json({c});
  CHECK(j[0]["holds"] == true);
  CHECK(j[0]["seeds_holding"] == 3);
  CHECK(j[0]["seeds_total"] == 4);
  CHECK(j[0]["a"].get<double>() == doctest::Approx(0.1575));
}

TEST_CASE("report markdown tables") {
  CHECK(markdown_table({"a", "b"}, {{"1", "x|y"}, {"2"}}) == "| a | b |\n|---|---|\n| 1 | x\\|y |\n| 2 | - |\n");
  CHECK(throws_with([] { markdown_table({"a"}, {{"1", "2"}}); }, {"markdown_table", "row 0 has 2 cells for 1"}));
}

// A paper's qualitative claims checked on measured groups: "a < b" (or >, or a custom
// predicate) on the seed means, and on how many seeds it holds when a and b are paired by
// seed ("3/4 seeds"), not on one seed.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "harmonic/tools/report/stats.h"

namespace hm::report {

// How a claim compares a with b: the symbol shown ("<") and the predicate.
struct Comparison {
  std::string symbol;
  std::function<bool(double, double)> holds;
};
Comparison less();     // a < b (a NaN never holds)
Comparison greater();  // a > b

struct ClaimResult {
  std::string claim;                          // "Fourier-12 KL < linear KL on gaussian"
  bool holds = false;                         // on the seed means
  std::string detail;                         // "0.1092 < 0.1715 (means)"
  std::string symbol;                         // the comparison's, "<"
  size_t seeds_holding = 0, seeds_total = 0;  // over the seeds both a and b have
  double a = 0, b = 0;                        // the means
};

// Checks `compare` on the means of a and b and on every seed both have.
ClaimResult check_claim(const std::string& claim, const MetricStats& a, const MetricStats& b,
                        const Comparison& compare = less());

// "3/4 seeds" ("0/0 seeds" when no seed is shared).
std::string seeds_fraction(const ClaimResult& c);
// The verdict in words, for the lines a study prints: "holds on the mean (0.0763 < 0.1033),
// 1/1 seeds (a single seed)" or "does not hold: mean 0.1263 vs 0.0988, needs <; 0/1 seeds
// (a single seed)".
std::string claim_verdict(const ClaimResult& c);
// | claim | holds on the means | seeds | means | : one row per claim, with a line saying how
// the seeds are counted. Empty list: "(no claims could be checked)". mark_single_seed: a
// verdict that rests on one seed says so in its "holds on mean" cell.
std::string claims_markdown(const std::vector<ClaimResult>& claims, bool mark_single_seed = false);
// [{"claim", "holds", "seeds_holding", "seeds_total", "a", "b", "detail"}, ...]
Json claims_json(const std::vector<ClaimResult>& claims);

}  // namespace hm::report

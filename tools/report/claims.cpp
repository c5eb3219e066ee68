// Claims checked on seed means and seed by seed (see claims.h).
#include "harmonic/tools/report/claims.h"

#include <fmt/format.h>

#include <cmath>

#include "harmonic/tools/report/markdown.h"

namespace hm::report {
namespace {

// Four decimals, or four significant digits below 0.01 (test MSEs of 1e-5 must not read 0.0000).
std::string claim_number(double v) {
  return v != 0 && std::abs(v) < 0.01 ? fmt::format("{:.3e}", v) : fmt::format("{:.4f}", v);
}

}  // namespace

Comparison less() {
  return {"<", [](double a, double b) { return a < b; }};
}
Comparison greater() {
  return {">", [](double a, double b) { return a > b; }};
}

ClaimResult check_claim(const std::string& claim, const MetricStats& a, const MetricStats& b,
                        const Comparison& compare) {
  ClaimResult r;
  r.claim = claim;
  r.a = a.mean, r.b = b.mean;
  r.holds = a.count > 0 && b.count > 0 && compare.holds(a.mean, b.mean);
  for (size_t i = 0; i < a.seeds.size() && i < a.values.size(); ++i)
    if (const auto other = b.at_seed(a.seeds[i])) {
      ++r.seeds_total;
      r.seeds_holding += compare.holds(a.values[i], *other) ? 1 : 0;
    }
  r.detail = fmt::format("{} {} {}", claim_number(r.a), compare.symbol, claim_number(r.b));
  r.symbol = compare.symbol;
  return r;
}

std::string seeds_fraction(const ClaimResult& c) { return fmt::format("{}/{} seeds", c.seeds_holding, c.seeds_total); }

std::string claim_verdict(const ClaimResult& c) {
  const std::string seeds = seeds_fraction(c) + (c.seeds_total == 1 ? " (a single seed)" : "");
  if (c.holds) return fmt::format("holds on the mean ({}), {}", c.detail, seeds);
  if (c.symbol.empty()) return fmt::format("does not hold on the mean ({}); {}", c.detail, seeds);
  return fmt::format("does not hold: mean {} vs {}, needs {}; {}", claim_number(c.a), claim_number(c.b), c.symbol,
                     seeds);
}

std::string claims_markdown(const std::vector<ClaimResult>& claims, bool mark_single_seed) {
  if (claims.empty()) return "(no claims could be checked)\n";
  std::vector<std::vector<std::string>> rows;
  for (const ClaimResult& c : claims)
    rows.push_back({c.claim,
                    std::string(c.holds ? "**yes**" : "**no**") +
                        (mark_single_seed && c.seeds_total == 1 ? " (single seed)" : ""),
                    seeds_fraction(c), c.detail});
  return "Each claim is checked on the means over seeds (\"holds on mean\") and seed by seed, pairing the two "
         "sides' runs of the same seed (\"seeds\": on how many of the shared seeds it holds).\n\n" +
         markdown_table({"claim", "holds on mean", "seeds", "means"}, rows);
}

Json claims_json(const std::vector<ClaimResult>& claims) {
  Json out = Json::array();
  for (const ClaimResult& c : claims)
    out.push_back({{"claim", c.claim},
                   {"holds", c.holds},
                   {"seeds_holding", c.seeds_holding},
                   {"seeds_total", c.seeds_total},
                   {"a", number_or_null(c.a)},
                   {"b", number_or_null(c.b)},
                   {"detail", c.detail}});
  return out;
}

}  // namespace hm::report

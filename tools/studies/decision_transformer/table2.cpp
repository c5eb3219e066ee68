#include "harmonic/tools/studies/decision_transformer/table2.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::studies {

const std::vector<DtPaperColumn>& dt_paper_table2() {
  // Table 2 (section 5): linear head, then Fourier head, per game.
  static const std::vector<DtPaperColumn> columns = {
      {"bankheist", "BankHeist", {-0.09, 0.05, "Table 2 (BankHeist)"}, {0.92, 0.33, "Table 2 (BankHeist)"}},
      {"doubledunk", "DoubleDunk", {-72.72, 33.08, "Table 2 (DoubleDunk)"}, {45.45, 36.36, "Table 2 (DoubleDunk)"}},
      {"gravitar", "Gravitar", {1.32, 0.17, "Table 2 (Gravitar)"}, {4.98, 0.93, "Table 2 (Gravitar)"}},
      {"seaquest", "Seaquest", {2.53, 0.63, "Table 2 (Seaquest)"}, {3.70, 0.47, "Table 2 (Seaquest), Fourier-14"}}};
  return columns;
}

const DtPaperColumn& dt_paper_column(const std::string& game) {
  std::string known;
  for (const DtPaperColumn& c : dt_paper_table2()) {
    if (c.game == game) return c;
    known += (known.empty() ? "" : ", ") + c.game;
  }
  throw_error(kDtStudy, fmt::format("Table 2 has no game '{}' (it has {})", game, known));
}

DtTable2Column dt_table2_column(const std::vector<DtGroup>& groups, const std::string& game,
                                int64_t main_frequencies) {
  DtTable2Column col{.paper = dt_paper_column(game)};
  size_t most = 0;
  for (const DtGroup& g : groups) {
    if (!g.head.fourier()) col.linear = g;
    else most = std::max(most, g.seeds.size());
  }
  // The every-seed heads, the main N first; then the sweep's best on the mean where it is another.
  for (const DtGroup& g : groups)
    if (g.head.fourier() && g.head.frequencies == main_frequencies && g.seeds.size() == most) col.fourier.push_back(g);
  for (const DtGroup& g : groups)
    if (g.head.fourier() && g.head.frequencies != main_frequencies && g.seeds.size() == most) col.fourier.push_back(g);
  const size_t every_seed = col.fourier.size();
  const DtGroup* best = nullptr;
  for (const DtGroup& g : groups)
    if (g.head.fourier() && (!best || g.best_normalized.mean > best->best_normalized.mean)) best = &g;
  if (best && std::none_of(col.fourier.begin(), col.fourier.end(),
                           [&](const DtGroup& g) { return g.head.frequencies == best->head.frequencies; }))
    col.fourier.push_back(*best);
  if (!col.linear) return col;
  const std::string atari = col.paper.atari_name;
  for (size_t i = 0; i < col.fourier.size(); ++i) {
    const DtGroup& g = col.fourier[i];
    col.claims.push_back(report::check_claim(
        fmt::format("{}{} best-epoch normalised return > linear ({}, Table 2)", g.head.name(),
                    i < every_seed ? "" : " (best on the mean)", atari),
        g.best_normalized, col.linear->best_normalized, report::greater()));
  }
  for (size_t i = 0; i < every_seed; ++i)
    col.claims.push_back(report::check_claim(
        fmt::format("{} action pmfs smoother than linear ({})", col.fourier[i].head.name(), atari),
        col.fourier[i].smoothness, col.linear->smoothness, report::less()));
  return col;
}

Json dt_table2_json(const DtTable2Column& col) {
  Json fourier = Json::array();
  for (const DtGroup& g : col.fourier)
    fourier.push_back({{"head", g.head.name()},
                       {"seeds", g.seeds},
                       {"best_normalized_return", report::cell_json(g.best_normalized, col.paper.fourier, 2)},
                       {"smoothness", report::stats_json(g.smoothness)}});
  Json out = {{"game", col.paper.game}, {"atari_name", col.paper.atari_name}, {"fourier", fourier}};
  if (col.linear)
    out["linear"] = {{"seeds", col.linear->seeds},
                     {"best_normalized_return", report::cell_json(col.linear->best_normalized, col.paper.linear, 2)},
                     {"smoothness", report::stats_json(col.linear->smoothness)}};
  out["claims"] = report::claims_json(col.claims);
  return out;
}

namespace {

// "k/n seeds" of the column's return claim for a Fourier head ("" for linear or no claim).
std::string dt_table2_seeds_above(const DtTable2Column& col, const DtGroup& g) {
  for (const report::ClaimResult& c : col.claims)
    if (c.claim.starts_with(g.head.name() + " ") && c.symbol == ">")
      return fmt::format("{} ({} above linear)", c.holds ? "yes" : "**no**", report::seeds_fraction(c));
  return "";
}

std::string dt_table2_seeds_smoother(const DtTable2Column& col, const DtGroup& g) {
  for (const report::ClaimResult& c : col.claims)
    if (c.claim.starts_with(g.head.name() + " ") && c.symbol == "<")
      return fmt::format("{} ({})", c.holds ? "yes" : "**no**", report::seeds_fraction(c));
  return "-";
}

}  // namespace

std::string dt_table2_game_markdown(const DtTable2Column& col) {
  std::string md = fmt::format(
      "| Table 2 row | paper ({}) | our head | seeds | best-epoch normalised return | Fourier above linear | "
      "pmf smoothness | smoother than linear |\n|---|---|---|---|---|---|---|---|\n",
      col.paper.atari_name);
  if (col.linear)
    md += fmt::format("| linear head | {} | linear | {} | {} | - | {} | - |\n", report::format_paper(col.paper.linear, 2),
                      col.linear->seeds.size(), report::format_stats(col.linear->best_normalized, 2),
                      report::format_stats(col.linear->smoothness, 4));
  for (const DtGroup& g : col.fourier)
    md += fmt::format("| Fourier head | {} | {} | {} | {} | {} | {} | {} |\n", report::format_paper(col.paper.fourier, 2),
                      g.head.name(), g.seeds.size(), report::format_stats(g.best_normalized, 2),
                      dt_table2_seeds_above(col, g), report::format_stats(g.smoothness, 4),
                      dt_table2_seeds_smoother(col, g));
  return md;
}

std::string dt_table2_markdown(const std::vector<DtTable2Column>& columns) {
  std::vector<const DtTable2Column*> ours;
  std::string md = "| row |";
  for (const DtPaperColumn& p : dt_paper_table2()) {
    md += fmt::format(" {} |", p.atari_name);
    const DtTable2Column* found = nullptr;
    for (const DtTable2Column& c : columns)
      if (c.paper.game == p.game) found = &c;
    ours.push_back(found);
  }
  md += "\n|---|";
  for (size_t i = 0; i < ours.size(); ++i) md += "---|";
  md += "\n";
  auto row = [&](const std::string& name, auto cell) {
    md += "| " + name + " |";
    for (size_t i = 0; i < ours.size(); ++i) md += " " + cell(dt_paper_table2()[i], ours[i]) + " |";
    md += "\n";
  };
  row("linear head, paper", [](const DtPaperColumn& p, const DtTable2Column*) { return report::format_paper(p.linear, 2); });
  row("linear head, ours", [](const DtPaperColumn&, const DtTable2Column* c) -> std::string {
    if (!c || !c->linear) return "not yet run";
    return fmt::format("{} ({} seeds)", report::format_stats(c->linear->best_normalized, 2), c->linear->seeds.size());
  });
  row("Fourier head, paper", [](const DtPaperColumn& p, const DtTable2Column*) { return report::format_paper(p.fourier, 2); });
  size_t rows = 0;
  for (const DtTable2Column* c : ours)
    if (c) rows = std::max(rows, c->fourier.size());
  for (size_t k = 0; k < rows; ++k)
    row(k == 0 ? "Fourier head, ours" : "", [&](const DtPaperColumn&, const DtTable2Column* c) -> std::string {
      if (!c) return k == 0 ? "not yet run" : "";
      if (k >= c->fourier.size()) return "";
      const DtGroup& g = c->fourier[k];
      const std::string above = dt_table2_seeds_above(*c, g);
      return fmt::format("{} {}{}", g.head.name(), report::format_stats(g.best_normalized, 2),
                         above.empty() ? "" : ", " + above);
    });
  return md;
}

}  // namespace hm::studies

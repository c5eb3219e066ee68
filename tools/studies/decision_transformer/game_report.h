// The Decision Transformer study's report on the other arcade games (BankHeist, DoubleDunk,
// Gravitar): the game's Table 2 column (table2.h) beside ours, the frequency sweep as the game's
// panel of Figure 16 (return and pmf smoothness against N), Figure 13's pmfs, and the claims
// seed by seed. Seaquest keeps its own report (report.h: Table 2's Seaquest row, Figures 4, 14, 15).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/studies/decision_transformer/report.h"
#include "harmonic/tools/studies/decision_transformer/table2.h"

namespace hm::studies {

// The Table 2 column's claims, then Figure 16's: the smallest N smoother than the largest.
std::vector<report::ClaimResult> dt_game_claims(const DtTable2Column& column, const std::vector<DtGroup>& main_groups);

std::string dt_game_summary_markdown(const std::vector<DtGroup>& groups, const StudyInfo& info,
                                     int64_t main_frequencies, const std::string& game);

StudyReport write_dt_game_study(const std::string& dir, const std::vector<DtRun>& runs, const StudyInfo& info,
                                int64_t main_frequencies, const std::string& game);

}  // namespace hm::studies

// Table 2 of the Fourier head paper (section 5) game by game: the paper's linear and Fourier rows
// for each of its four Atari games, ours from one game's study beside them (the linear head, the
// every-seed Fourier heads and the best Fourier head on the mean, with the claims seed by seed),
// and the four games' columns in one table.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/studies/decision_transformer/report.h"

namespace hm::studies {

// The paper's Table 2 column of a game (normalised return, mean +- std over four seeds); its
// Fourier row is the best N on that game, which the paper names for Seaquest only (Fourier-14).
struct DtPaperColumn {
  std::string game, atari_name;
  report::PaperValue linear, fourier;
};
// The four games in Table 2's order (BankHeist, DoubleDunk, Gravitar, Seaquest).
const std::vector<DtPaperColumn>& dt_paper_table2();
// The column of a data/arcade game name; throws naming the games the table has.
const DtPaperColumn& dt_paper_column(const std::string& game);

// Our side of one game's column: best-epoch normalised returns and the claims against linear.
struct DtTable2Column {
  DtPaperColumn paper;
  std::optional<DtGroup> linear;
  std::vector<DtGroup> fourier;  // the every-seed Fourier heads, then the best on the mean where another
  std::vector<report::ClaimResult> claims;
};

// The Fourier heads run on the most seeds (the every-seed heads; `main_frequencies` first), and
// the sweep's best on the mean; the claims: each above linear in best-epoch return, each
// every-seed head's pmfs smoother than linear's.
DtTable2Column dt_table2_column(const std::vector<DtGroup>& main_groups, const std::string& game,
                                int64_t main_frequencies);
Json dt_table2_json(const DtTable2Column& column);
// One game's column as a table (the paper's rows beside ours).
std::string dt_table2_game_markdown(const DtTable2Column& column);
// The games' columns side by side, in Table 2's order; a game without a column says "not run".
std::string dt_table2_markdown(const std::vector<DtTable2Column>& columns);

}  // namespace hm::studies

// Markdown tables for study reports.
#pragma once
#include <string>
#include <vector>

namespace hm::report {

// | h1 | h2 |\n|---|---|\n| a | b |\n ... Cells have '|' escaped; rows shorter than the
// header are padded with "-", longer ones throw.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

// '|' -> '\|' and newlines -> spaces, so a string stays inside one cell.
std::string markdown_cell(const std::string& s);

}  // namespace hm::report

// Markdown tables (see markdown.h).
#include "harmonic/tools/report/markdown.h"

#include "harmonic/core/error.h"

namespace hm::report {

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n' || ch == '\r')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  check(!header.empty(), "markdown_table", "no header");
  // Appended piece by piece (GCC 12 warns falsely on " " + s + " |", -Wrestrict).
  auto add_cell = [](std::string& out, const std::string& text) {
    out += ' ';
    out += markdown_cell(text);
    out += " |";
  };
  std::string out = "|", rule = "|";
  for (const std::string& h : header) add_cell(out, h), rule += "---|";
  out += '\n';
  out += rule;
  out += '\n';
  for (size_t r = 0; r < rows.size(); ++r) {
    check(rows[r].size() <= header.size(), "markdown_table", "row {} has {} cells for {} columns", r, rows[r].size(),
          header.size());
    out += "|";
    for (size_t c = 0; c < header.size(); ++c) add_cell(out, c < rows[r].size() ? rows[r][c] : "-");
    out += "\n";
  }
  return out;
}

}  // namespace hm::report

// Numeric CSV files (time series, tabular data) -> a (rows, columns) tensor. Any cell that
// is missing or not a number raises hm::Error naming the file, line and column.
//
//   auto csv = data::read_csv("prices.csv", {.columns = {"open", "close"}});
//   auto ds = std::make_shared<data::WindowDataset>(csv.values, 32, 1, 32, 1);  // 32 in, next 1
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::data {

enum class CsvHeader { Auto, Yes, No };  // Auto: the first line is a header if a cell of it is not a number

struct CsvOptions {
  char delimiter = ',';
  // '.' or ','. With ',' ("3,5"), a '.' may only group thousands before the comma ("1.234,5").
  char decimal = '.';
  CsvHeader header = CsvHeader::Auto;
  // Columns to keep, by header name; empty = all. Unselected columns are not parsed, so
  // they may hold dates or text.
  std::vector<std::string> columns;
  // Or by 0-based position (when there is no header); ignored when `columns` is set.
  std::vector<int64_t> column_indices;
  DType dtype = DType::Float32;  // float32 or float64
  // Missing values become NaN instead of an error: empty cells, NA / N/A / null / nan, and
  // the cells a short line lacks (time series with gaps or of different lengths).
  bool missing_as_nan = false;
  // With neither `columns` nor `column_indices`: drop the columns whose first data cell is
  // text that is not a number or a missing marker (a date or label column); they are listed
  // in CsvTable::skipped. With a selection or without, the unselected text columns' cells are
  // kept (CsvTable::text_cells).
  bool skip_text_columns = false;
  // What the error messages call the column and delimiter settings: these fields for a
  // library caller, a command's own flags (e.g. "--column") for a command line.
  std::string columns_name = "CsvOptions::columns", delimiter_name = "CsvOptions::delimiter",
              decimal_name = "CsvOptions::decimal";
};

struct CsvTable {
  Tensor values;                   // (rows, selected columns)
  std::vector<std::string> names;    // selected column names ("0", "1", ... without a header)
  std::vector<std::string> skipped;  // columns dropped by skip_text_columns
  // With skip_text_columns: every unselected column whose first data cell is text (a date or
  // label column), by name, and its raw cells, one per data row ("" where a line is short).
  std::vector<std::string> text_names;
  std::vector<std::vector<std::string>> text_cells;
  std::vector<int64_t> lines;  // the file line (1-based) of each data row, for messages
};

// The delimiter and decimal mark a file's first lines use. The delimiter: of ',', ';', tab and
// '|', the one that splits every sampled line into the same number (> 1) of cells, the most cells
// winning (';' and tab before ',' on a tie: a ';' file's decimal commas split its lines evenly
// too); ',' when none does. The decimal mark: ',' when more cells read as decimal-comma numbers
// ("3,5", "1.234,5") than as decimal-point ones, MM.YYYY dates not counted.
struct CsvDialect {
  char delimiter = ',', decimal = '.';
};
CsvDialect detect_csv_dialect(std::string_view text);

// Reads a CSV file: RFC 4180 style double quotes (no newlines inside), blank lines skipped,
// surrounding spaces trimmed, CRLF accepted, a UTF-8 byte-order mark dropped. Numbers in C
// locale syntax (or with decimal commas), plus nan/inf. A column whose every cell is written
// M.YYYY or MM.YYYY (a month 1-12, a dot, four digits) is text (dates), not numbers.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

// The same from text already in memory; `source` names it in error messages.
CsvTable parse_csv(std::string_view text, const CsvOptions& options = {}, const std::string& source = "<string>");

}  // namespace hm::data

#include "harmonic/data/csv.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <fstream>
#include <optional>
#include <sstream>

#include "harmonic/core/factories.h"
#include "harmonic/core/file_read.h"

namespace hm::data {
namespace {

constexpr std::string_view kReadCsv = "read_csv";

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

// Splits one line into trimmed cells; "a ""b""" quoting.
std::vector<std::string> split_line(std::string_view line, char delim, const std::string& source, int64_t line_no) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cell += ch;
      }
    } else if (ch == '"' && trim(cell).empty()) {
      quoted = was_quoted = true;
      cell.clear();
    } else if (ch == delim) {
      cells.push_back(was_quoted ? cell : std::string(trim(cell)));
      cell.clear();
      was_quoted = false;
    } else if (!was_quoted) {
      cell += ch;
    }
  }
  check(!quoted, kReadCsv, "'{}' line {}: unterminated quote", source, line_no);
  cells.push_back(was_quoted ? cell : std::string(trim(cell)));
  return cells;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A number in C locale syntax, or with decimal ',' ("3,5", "-1.234,5": dots group thousands).
std::optional<double> parse_number(std::string_view s, char decimal = '.') {
  s = trim(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::string converted;
  if (decimal == ',') {
    const size_t comma = s.find(',');
    std::string_view whole = s.substr(0, comma), fraction = comma == s.npos ? "" : s.substr(comma + 1);
    if (fraction.find_first_of(",.") != fraction.npos) return std::nullopt;
    if (!whole.empty() && whole[0] == '-') converted = "-", whole.remove_prefix(1);
    if (whole.find('.') != whole.npos) {  // 1.234.567: groups of three after the first
      size_t start = 0;
      for (size_t dot = whole.find('.'); start <= whole.size(); dot = whole.find('.', start)) {
        const std::string_view group = whole.substr(start, dot == whole.npos ? whole.npos : dot - start);
        if (!all_digits(group) || (start == 0 ? group.size() > 3 : group.size() != 3)) return std::nullopt;
        converted += group;
        if (dot == whole.npos) break;
        start = dot + 1;
      }
    } else {
      converted += whole;
    }
    if (comma != s.npos) converted += "." + std::string(fraction);
    s = converted;
  }
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "3,5" or "1.234,5": a number only with decimal commas.
bool decimal_comma_number(std::string_view s) {
  return s.find(',') != s.npos && !parse_number(s, '.') && parse_number(s, ',');
}

// M.YYYY or MM.YYYY: a month of a year, which C locale syntax would read as a number (01.2020 = 1.202).
bool month_dot_year(std::string_view s) {
  s = trim(s);
  const size_t dot = s.find('.');
  if (dot == s.npos || dot == 0 || dot > 2 || s.size() != dot + 5) return false;
  if (!all_digits(s.substr(0, dot)) || !all_digits(s.substr(dot + 1))) return false;
  const int month = std::stoi(std::string(s.substr(0, dot)));
  return month >= 1 && month <= 12;
}

bool is_missing_marker(std::string_view s) {
  s = trim(s);
  return s.empty() || s == "NA" || s == "N/A" || s == "na" || s == "null" || s == "NULL";
}

struct Line {
  int64_t number;  // 1-based line in the file
  std::string_view text;
};

std::vector<Line> non_blank_lines(std::string_view text) {
  std::vector<Line> lines;
  int64_t number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    std::string_view line = text.substr(pos, end - pos);
    if (!trim(line).empty()) lines.push_back({number, line});
    pos = end + 1;
  }
  return lines;
}

// The cells of `line` split at `delim` outside double quotes (no errors: a guess, not a parse).
int64_t count_cells(std::string_view line, char delim) {
  int64_t n = 1;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"')
      quoted = !quoted;
    else if (ch == delim && !quoted)
      ++n;
  }
  return n;
}

std::string_view without_bom(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text; }

// " (the lines look ';'-separated ...)" when the first line holds another common delimiter
// more often than this one: such a file reads as one text column and fails confusingly.
std::string delimiter_hint(std::string_view first_line, const CsvOptions& opt) {
  auto shown = [](char c) { return c == '\t' ? std::string("\\t") : std::string(1, c); };
  auto count = [&](char c) { return std::count(first_line.begin(), first_line.end(), c); };
  for (char other : {';', '\t', ',', '|'})
    if (other != opt.delimiter && count(other) > count(opt.delimiter))
      return fmt::format(" (the lines look '{}'-separated, not '{}': set {} to '{}')", shown(other),
                         shown(opt.delimiter), opt.delimiter_name, shown(other));
  return "";
}

// " (values look like decimal commas ...)" when some of these cells read as numbers only with
// decimal commas and the options read decimal points.
std::string decimal_hint(const std::vector<std::string>& cells, const CsvOptions& opt) {
  if (opt.decimal == ',') return "";
  for (const std::string& cell : cells)
    if (decimal_comma_number(cell))
      return fmt::format(" (values look like decimal commas, e.g. '{}': set {} to ','{})", cell, opt.decimal_name,
                         opt.delimiter == ',' ? fmt::format(" and {} to ';' or a tab", opt.delimiter_name) : "");
  return "";
}

}  // namespace

CsvDialect detect_csv_dialect(std::string_view text) {
  std::vector<Line> lines = non_blank_lines(without_bom(text));
  if (lines.size() > 50) lines.resize(50);
  CsvDialect d;
  int64_t best = 1;
  for (char delim : {';', '\t', ',', '|'}) {
    if (lines.empty()) break;
    const int64_t n = count_cells(lines[0].text, delim);
    bool even = n > 1;
    for (const Line& line : lines) even &= count_cells(line.text, delim) == n;
    if (even && n > best) best = n, d.delimiter = delim;
  }
  int64_t commas = 0, points = 0;
  for (size_t l = 1; l < lines.size(); ++l) {
    std::vector<std::string> cells;
    try {
      cells = split_line(lines[l].text, d.delimiter, "", lines[l].number);
    } catch (const Error&) {  // an unterminated quote: parse_csv reports it with the file's name
      continue;
    }
    for (const std::string& cell : cells) {
      commas += decimal_comma_number(cell);
      points += cell.find('.') != cell.npos && parse_number(cell, '.') && !month_dot_year(cell);
    }
  }
  if (commas > points) d.decimal = ',';
  return d;
}

CsvTable parse_csv(std::string_view text, const CsvOptions& opt, const std::string& source) {
  check(opt.dtype == DType::Float32 || opt.dtype == DType::Float64, kReadCsv, "dtype must be float32 or float64, got {}",
        dtype_name(opt.dtype));
  check(opt.decimal == '.' || opt.decimal == ',', kReadCsv, "'{}': the decimal mark must be '.' or ',', got '{}'", source,
        opt.decimal);
  std::vector<Line> lines = non_blank_lines(without_bom(text));
  check(!lines.empty(), kReadCsv, "'{}': empty file (no lines)", source);
  std::vector<std::vector<std::string>> rows_cells;  // every line's cells, the header's first
  for (const Line& line : lines) rows_cells.push_back(split_line(line.text, opt.delimiter, source, line.number));
  auto number = [&](std::string_view cell) { return parse_number(cell, opt.decimal); };
  const std::vector<std::string>& first = rows_cells[0];
  const auto ncols = static_cast<int64_t>(first.size());
  const std::string hint = delimiter_hint(lines[0].text, opt);
  bool has_header = opt.header == CsvHeader::Yes;
  if (opt.header == CsvHeader::Auto)
    for (const auto& cell : first) has_header |= !number(cell).has_value();

  std::vector<std::string> names(static_cast<size_t>(ncols));
  for (int64_t c = 0; c < ncols; ++c) names[c] = has_header ? first[c] : std::to_string(c);

  std::vector<int64_t> keep;  // selected column positions
  if (!opt.columns.empty()) {
    check(has_header, kReadCsv, "'{}': columns selected by name but the file has no header line", source);
    for (const auto& name : opt.columns) {
      auto it = std::find(names.begin(), names.end(), name);
      check(it != names.end(), kReadCsv, "'{}': no column '{}' in the header (columns: {}){}", source, name,
            fmt::join(names, ", "), hint);
      keep.push_back(it - names.begin());
    }
  } else if (!opt.column_indices.empty()) {
    for (int64_t c : opt.column_indices) {
      check(c >= 0 && c < ncols, kReadCsv, "'{}': column index {} out of range for {} columns", source, c, ncols);
      keep.push_back(c);
    }
  } else {
    for (int64_t c = 0; c < ncols; ++c) keep.push_back(c);
  }

  const size_t first_data = has_header ? 1 : 0;
  std::vector<std::string> skipped;
  std::vector<int64_t> text_columns;  // unselected columns of text, kept as cells
  if (opt.skip_text_columns && lines.size() > first_data) {
    const std::vector<std::string>& cells = rows_cells[first_data];
    // Without a selection every column is kept, so its text columns are the ones dropped.
    const bool selected = !opt.columns.empty() || !opt.column_indices.empty();
    auto month_years = [&](int64_t c) {
      for (size_t r = first_data; r < rows_cells.size(); ++r)
        if (c >= std::ssize(rows_cells[r]) || !month_dot_year(rows_cells[r][c])) return false;
      return true;
    };
    std::vector<int64_t> numeric;
    for (int64_t c = 0; c < ncols; ++c) {
      const bool text = c < std::ssize(cells) &&
                        ((!number(cells[c]) && !is_missing_marker(cells[c])) || (opt.decimal == '.' && month_years(c)));
      if (!text) {
        numeric.push_back(c);
      } else if (!selected) {
        skipped.push_back(names[c]);
        text_columns.push_back(c);
      } else if (std::find(keep.begin(), keep.end(), c) == keep.end()) {
        text_columns.push_back(c);
      }
    }
    if (!selected) {
      keep = numeric;
      check(!keep.empty(), kReadCsv, "'{}': no numeric column (line {} has text in every column: {}){}{}", source,
            lines[first_data].number, fmt::join(skipped, ", "), hint, decimal_hint(cells, opt));
    }
  }
  const auto rows = static_cast<int64_t>(lines.size() - first_data);
  check(rows > 0, kReadCsv, "'{}': no data rows after the header (line {})", source, lines[0].number);
  const auto nkeep = static_cast<int64_t>(keep.size());
  std::vector<double> values(static_cast<size_t>(rows * nkeep));
  std::vector<std::vector<std::string>> text_cells(text_columns.size());
  std::vector<int64_t> line_numbers;
  for (int64_t r = 0; r < rows; ++r) {
    const Line& line = lines[first_data + r];
    const std::vector<std::string>& cells = rows_cells[first_data + r];
    line_numbers.push_back(line.number);
    const auto got = static_cast<int64_t>(cells.size());
    check(got <= ncols, kReadCsv, "'{}' line {}: {} cells but line {} has {} (extra cell at column {})", source, line.number,
          got, lines[0].number, ncols, ncols + 1);
    for (size_t t = 0; t < text_columns.size(); ++t)
      text_cells[t].push_back(text_columns[t] < got ? cells[text_columns[t]] : std::string());
    for (int64_t k = 0; k < nkeep; ++k) {
      const int64_t c = keep[k];
      if (opt.missing_as_nan && (c >= got || is_missing_marker(cells[c]))) {
        values[r * nkeep + k] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      check(c < got, kReadCsv, "'{}' line {} column {} ('{}'): missing value (the line has only {} cells)", source,
            line.number, c + 1, names[c], got);
      std::optional<double> v = number(cells[c]);
      check(!cells[c].empty(), kReadCsv, "'{}' line {} column {} ('{}'): missing value (empty cell)", source, line.number,
            c + 1, names[c]);
      check(v.has_value(), kReadCsv, "'{}' line {} column {} ('{}'): '{}' is not a number{}", source, line.number, c + 1,
            names[c], cells[c],
            !hint.empty()                            ? hint
            : !decimal_hint({cells[c]}, opt).empty() ? decimal_hint({cells[c]}, opt)
            : opt.columns.empty() && opt.column_indices.empty()
                ? fmt::format(" (select numeric columns with {})", opt.columns_name)
                : std::string());
      values[r * nkeep + k] = *v;
    }
  }
  CsvTable out;
  out.values = from_vector(values, {rows, nkeep}, {.dtype = opt.dtype});
  for (int64_t c : keep) out.names.push_back(names[c]);
  out.skipped = skipped;
  for (int64_t c : text_columns) out.text_names.push_back(names[c]);
  out.text_cells = std::move(text_cells);
  out.lines = std::move(line_numbers);
  return out;
}

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  check_readable_file(path, kReadCsv);  // a directory or a missing path, by name
  std::ifstream in(path, std::ios::binary);
  check(in.good(), kReadCsv, "cannot open '{}'", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_csv(buffer.str(), options, path);
}

}  // namespace hm::data

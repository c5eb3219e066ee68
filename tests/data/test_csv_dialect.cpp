// CSV dialects (data/csv.h): the delimiter and decimal mark detected from a file's first lines,
// decimal commas read, a byte-order mark dropped, MM.YYYY cells kept as text, data rows' lines.
#include "harmonic/data/csv.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using hm::test::throws_with;

TEST_CASE("csv dialect: semicolons with decimal commas, tabs, plain commas, and quoted decimal commas") {
  auto found = [](std::string_view text) {
    const CsvDialect d = detect_csv_dialect(text);
    return std::string{d.delimiter, d.decimal};
  };
  CHECK(found("date;value\n2020-01-01;3,5\n2020-01-02;4\n") == ";,");
  CHECK(found("Monat;Umsatz\n01.2020;1.234,5\n02.2020;2,25\n") == ";,");  // MM.YYYY is not a decimal point
  CHECK(found("a;b\n1;2\n3;4\n") == ";.");
  CHECK(found("a\tb\n1.5\t2\n") == "\t.");
  CHECK(found("a,b\n1.5,2\n3,4\n") == ",.");
  CHECK(found("date,value\n2020-01,\"3,5\"\n2020-02,\"4,5\"\n") == ",,");
  CHECK(found("x\n1\n2\n") == ",.");                       // one column: the default
  CHECK_NOTHROW(detect_csv_dialect("a,b\n\"1,2\n3,4\n"));  // a broken line is left to parse_csv to report
  CHECK(found("\xEF\xBB\xBF"
              "a;b\n1;2\n") == ";.");
}

TEST_CASE("csv dialect: decimal commas read, thousands grouped, a BOM dropped, lines kept") {
  CsvTable t = parse_csv(
      "\xEF\xBB\xBF"
      "Month;x\n\n2020-01;1.234,5\n2020-02;-2,25\n2020-03;7\n",
      {.delimiter = ';', .decimal = ',', .dtype = DType::Float64, .skip_text_columns = true});
  CHECK(t.names == std::vector<std::string>{"x"});
  CHECK(t.text_names == std::vector<std::string>{"Month"});  // no byte-order mark in the name
  CHECK(t.values.to_vector() == std::vector<double>{1234.5, -2.25, 7});
  CHECK(t.lines == std::vector<int64_t>{3, 4, 5});  // the blank line 2 is skipped, not renumbered
  // With decimal commas a '.' only groups thousands.
  CHECK(throws_with([] { parse_csv("x\n1.5\n", {.delimiter = ';', .decimal = ','}); }, {"'1.5' is not a number"}));
  CHECK(throws_with([] { parse_csv("x\n12.34,5\n", {.delimiter = ';', .decimal = ','}); }, {"not a number"}));
  // With ',' between cells too, a decimal comma is quoted.
  CHECK(parse_csv("x,y\n\"1,5\",2\n", {.decimal = ','}).values.to_vector() == std::vector<double>{1.5, 2});
}

namespace {
char found_decimal(std::string_view text) { return detect_csv_dialect(text).decimal; }
}  // namespace

TEST_CASE("csv dialect: MM.YYYY columns are text, and decimal commas read as text name the fix") {
  CsvTable t = parse_csv("month,sales\n01.2020,3.5\n12.2020,4\n3.2021,5\n",
                         {.dtype = DType::Float64, .missing_as_nan = true, .skip_text_columns = true});
  CHECK(t.names == std::vector<std::string>{"sales"});
  CHECK(t.text_cells.at(0) == std::vector<std::string>{"01.2020", "12.2020", "3.2021"});
  CHECK(found_decimal("m;v\n1.2020;3,5\n2.2020;4,5\n3.2020;5\n") == ',');  // M.YYYY is no decimal point
  // A column with one cell that is not MM.YYYY stays numbers.
  CHECK(parse_csv("v\n01.2020\n3.25\n", {.skip_text_columns = true}).names == std::vector<std::string>{"v"});
  CHECK(throws_with(
      [] { parse_csv("date;value\n2020-01-01;3,5\n", {.delimiter = ';', .skip_text_columns = true}, "f.csv"); },
      {"'f.csv'", "no numeric column", "values look like decimal commas, e.g. '3,5'", "CsvOptions::decimal to ','"}));
  CHECK(throws_with([] { parse_csv("a\n1\n2,5\n", {.delimiter = ';'}, "f.csv"); },
                    {"line 3", "'2,5' is not a number", "decimal commas"}));
}

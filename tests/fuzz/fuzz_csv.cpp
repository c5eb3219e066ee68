// Target "csv": numeric CSV files (data::read_csv). The first byte picks the options a caller
// could pass (header mode, delimiter, decimal mark, dtype, columns by name or position, text
// columns skipped); the rest is the file, whose dialect is also detected.
#include "harmonic/data/csv.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_csv(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  data::CsvOptions options;
  options.header = flags % 3 == 0 ? data::CsvHeader::Auto : flags % 3 == 1 ? data::CsvHeader::Yes : data::CsvHeader::No;
  options.delimiter = (flags & 4) ? ';' : ',';
  options.dtype = (flags & 8) ? DType::Float64 : DType::Float32;
  if (flags & 16) options.columns = {"b", "a"};
  if (flags & 32) options.column_indices = {1, 0};
  if (flags & 64) options.decimal = ',';
  options.skip_text_columns = options.missing_as_nan = (flags & 128) != 0;
  const std::string path = write_scratch("input.csv", as_text(data + 1, size - 1));
  return reject_errors([&] {
    (void)data::detect_csv_dialect(as_text(data + 1, size - 1));
    data::CsvTable table = data::read_csv(path, options);
    (void)table.values.to_vector();
  });
}

}  // namespace hm::fuzz

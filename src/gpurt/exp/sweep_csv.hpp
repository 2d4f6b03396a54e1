// The sweep runner's CSV: plain comma-separated fields (no quoting: the runner never writes a
// comma, quote or newline in a field), complete lines only, and the merge of shard files.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpurt {

/// One complete line of a file: its 1-based line number and text without the newline.
struct CsvLine {
  std::size_t number = 0;
  std::string text;
};

/// The complete lines of `text` (each ended by '\n'; a trailing "\r" is dropped); an unterminated
/// last line — what a killed writer leaves — is not returned. Blank lines are skipped.
std::vector<CsvLine> complete_csv_lines(std::string_view text);

/// Fields joined with commas.
std::string join_csv_fields(const std::vector<std::string>& fields);

/// Whether `field` is a value the sweep runner writes: empty, true/false, or one or more finite
/// numbers separated by single spaces, each read whole (so "nan0.5", "1.5x", "nan" or "inf" is not).
bool well_formed_sweep_value(std::string_view field);

/// Whether a space-separated token of `field` reads whole as a number that is not finite ("nan",
/// "inf", "-infinity"): no sweep writes one, in any column.
bool holds_non_finite_number(std::string_view field);

/// A data row of a sweep CSV: its `point` and `points` columns and all its fields.
struct SweepCsvRow {
  std::size_t point = 0, points = 0;
  std::vector<std::string> fields;
};

/// Splits `line` and checks it has as many fields as `header` and that its first two are a
/// point index below a positive point count. Throws InputError naming `file` and the line.
SweepCsvRow parse_sweep_row(const CsvLine& line, const std::string& file, const std::string& header);

}  // namespace gpurt

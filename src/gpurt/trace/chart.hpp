// Line charts as SVG: the experiments' figures (acceptance ratio vs utilisation, analysis time vs
// task count, response-time CDFs). Self-contained, no plotting dependency; deterministic output
// so a figure in docs/ changes only when its data does.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpurt {

/// One line: points (x[i], y[i]) in the order given. Non-finite y values (NaN, inf) break the
/// line there and are not drawn.
struct ChartSeries {
  std::string label;
  std::vector<double> x, y;
};

struct Chart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;  ///< log10 axes; non-positive values are then not drawn
  std::string note;                   ///< under the title, e.g. "simulated"
  std::vector<ChartSeries> series;
  /// false: markers only, every point, no line between them (points that are categories, such
  /// as one row per scenario, are no curve).
  bool lines = true;
};

/// The chart as a standalone SVG document: axes with "nice" ticks, one coloured line with
/// markers per series, and a legend. Values a log axis cannot draw (at most 0, or below 10^-300)
/// are counted in the note line, never dropped unsaid. Throws gpurt::Error when no series has a drawable
/// point or a series' x and y differ in length.
std::string chart_svg(const Chart& chart);

/// The empirical CDF of `samples`: a step line from (min, 0) through (s_(i), i/n) for the sorted
/// samples s_(1..n). NaNs are dropped. An empty sample gives an empty series.
ChartSeries cdf_series(std::string label, std::vector<double> samples);

/// A simple CSV table: a header line of column names, then rows of the same width. Fields may be
/// quoted with "..." ("" inside quotes is one quote). Blank lines are skipped.
struct CsvTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  /// Index of `name`; throws InputError naming `file` and the known columns when absent.
  std::size_t column(const std::string& name, const std::string& file) const;
};

/// Parses CSV text; `file` names the source in errors (ragged rows, unterminated quotes, no header).
/// More than `max_rows` rows after the header: an InputError that ends with `limit` (what sets the
/// bound and how to raise it), thrown as the row past it is read, so memory stays bounded.
CsvTable parse_csv(std::string_view text, const std::string& file,
                   std::size_t max_rows = std::numeric_limits<std::size_t>::max(),
                   std::string_view limit = "");

/// Series from CSV columns: one per y column, or, with a `group` column, one per (group value,
/// y column) in first-appearance order, labelled "VALUE" (one y column) or "VALUE: COLUMN". Rows
/// are sorted by x within a series. Throws InputError naming the file, row and value for a
/// field that is not a number.
std::vector<ChartSeries> series_from_csv(const CsvTable& table, const std::string& file, const std::string& x,
                                         const std::vector<std::string>& ys, const std::string& group = "");

}  // namespace gpurt

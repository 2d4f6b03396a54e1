// gpurt chart CSV --x COL --y COL[,COL...] [--group COL] --out FILE.svg: a line chart of a CSV
// (the sweeps' figures), drawn by trace/chart.
#include <algorithm>
#include <cctype>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/trace/chart.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {

struct ChartArgs {
  std::string csv, x, group, title, x_label, y_label, note, out;
  std::vector<std::string> y;  ///< each --y as given: comma-separated columns
  bool log_x = false, log_y = false;
  std::size_t max_points = 1'000'000;
};

// A sweep's CSV says in its "backend" column where its numbers come from: a chart of simulated
// rows says so above the plot, as the sweep's own --plot does, unless the user's note does.
std::string simulated_note(const CsvTable& table, const std::string& note) {
  const auto it = std::find(table.columns.begin(), table.columns.end(), "backend");
  if (it == table.columns.end()) return note;
  const auto c = static_cast<std::size_t>(it - table.columns.begin());
  const bool simulated =
      std::any_of(table.rows.begin(), table.rows.end(),
                  [&](const std::vector<std::string>& row) { return row[c] == "simulated"; });
  std::string lower = note;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  if (!simulated || lower.find("simulated") != std::string::npos) return note;
  return note.empty() ? "SIMULATED (the CSV's backend column)" : "SIMULATED; " + note;
}

void run_chart(const ChartArgs& a) {
  check_output_file(a.out, "--out");  // before any work
  check_output_not_input(a.out, {a.csv}, "--out");
  std::vector<std::string> ys;
  for (const std::string& given : a.y) {
    for (std::string& y : split_commas(given)) {
      if (y.empty())
        throw InputError("command line", "--y", given, "has an empty item: name columns separated by commas");
      ys.push_back(std::move(y));
    }
  }
  // Every row draws a point per y column: bound the rows as they are read (a 50 MB CSV of short
  // rows took 2 GB and wrote a 150 MB picture), then the points.
  const std::string limit =
      fmt::format("--max-points {} bounds the points drawn (rows x y columns); raise it", a.max_points);
  const CsvTable table = parse_csv(read_text_file(a.csv), a.csv, a.max_points, limit);
  if (table.rows.size() * ys.size() > a.max_points)
    throw InputError(a.csv, fmt::format("{} rows x {} y columns is {} points: {}", table.rows.size(),
                                        ys.size(), table.rows.size() * ys.size(), limit));
  Chart chart;
  chart.series = series_from_csv(table, a.csv, a.x, ys, a.group);
  chart.title = a.title.empty() ? a.csv : a.title;
  chart.x_label = a.x_label.empty() ? a.x : a.x_label;
  chart.y_label = !a.y_label.empty() ? a.y_label : ys.size() == 1 ? ys.front() : "";
  chart.log_x = a.log_x;
  chart.log_y = a.log_y;
  chart.note = simulated_note(table, a.note);
  std::string svg;
  try {
    svg = chart_svg(chart);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(a.csv, e.what());  // e.g. no drawable point: a property of the data
  }
  write_file_atomically(a.out, svg);
}

}  // namespace

void add_chart(CLI::App& app) {
  auto* cmd = app.add_subcommand("chart", "Draw columns of a CSV (a sweep's output) as an SVG line chart");
  cmd->footer(
      "One line per y column, or per value of --group, in ascending x. Empty or nan y cells break\n"
      "a line; a row with an empty or nan x is left out; |values| above 1e300 are refused.\n"
      "Example:\n  gpurt chart fig8.csv --x utilization --y rtgpu,self-suspension,stgm \\\n"
      "    --title 'RTGPU Fig. 8' --y-label 'acceptance ratio' --out fig8.svg");
  auto a = std::make_shared<ChartArgs>();
  cmd->add_option("CSV", a->csv, "CSV file with a header line")->required();
  cmd->add_option("--x", a->x, "Column for the x axis")->required();
  cmd->add_option("--y", a->y, "Column(s) for the y axis, comma-separated (or --y repeated)")->required();
  cmd->add_option("--group", a->group, "Column whose values split the rows into lines");
  cmd->add_option("--title", a->title, "Chart title (default: the file name)");
  cmd->add_option("--x-label", a->x_label, "x axis label (default: the column)");
  cmd->add_option("--y-label", a->y_label, "y axis label (default: the column, when one)");
  cmd->add_option("--note", a->note,
                  "Line under the title (a CSV whose backend column says simulated gets SIMULATED in it)");
  cmd->add_flag("--log-x", a->log_x, "Logarithmic x axis");
  cmd->add_flag("--log-y", a->log_y, "Logarithmic y axis");
  cmd->add_option("--out", a->out, "SVG file to write")->required();
  cmd->add_option("--max-points", a->max_points,
                  "Refuse a CSV that would draw more points (rows x y columns; default 1000000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  cmd->callback([a] { run_chart(*a); });
}

}  // namespace gpurt::cli

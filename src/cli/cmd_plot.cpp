// gpurt plot RESULTS... [--svg FILE] [--perfetto FILE] [--cdf FILE] [--platform NAME]
// gpurt plot --compare PREDICTED_DIR MEASURED_DIR --svg FILE [--platform NAME]
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/bench/plots.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/trace/chart.hpp"
#include "gpurt/trace/examiner_json.hpp"
#include "gpurt/trace/render.hpp"

namespace gpurt::cli {

namespace {

struct PlotArgs {
  std::vector<std::string> results, compare;
  std::string svg, perfetto, cdf, platform;
  std::uint64_t max_drawn_blocks = kDefaultMaxDrawnBlocks;
};

void apply_platform(Trace& trace, const std::optional<Platform>& platform) {
  if (!platform) return;
  const Platform& p = *platform;
  trace.sms = std::max(trace.sms, p.sms);
  trace.max_threads_per_sm = p.max_threads;
  if (trace.platform.empty()) trace.platform = p.id;
}

void run_plot(const PlotArgs& a) {
  // Every input is read and every picture drawn before the first file is written: a bad
  // input leaves no output at all.
  if (!a.svg.empty()) check_output_file(a.svg, "--svg");
  if (!a.perfetto.empty()) check_output_file(a.perfetto, "--perfetto");
  if (!a.cdf.empty()) check_output_file(a.cdf, "--cdf");
  check_distinct_outputs({{"--svg", a.svg}, {"--perfetto", a.perfetto}, {"--cdf", a.cdf}});
  for (const auto& [option, path] :
       {std::pair{"--svg", a.svg}, {"--perfetto", a.perfetto}, {"--cdf", a.cdf}}) {
    if (path.empty()) continue;
    std::vector<std::string> inputs = a.results;
    inputs.push_back(a.platform);
    check_output_not_input(path, inputs, option);
    for (const std::string& dir : a.compare) check_output_outside(path, dir, option);
  }
  // Read once (a pipe cannot be read twice), for both sides of --compare.
  std::optional<Platform> platform;
  if (!a.platform.empty()) platform = platform_arg(a.platform);
  std::vector<OutputFile> outputs;
  if (!a.compare.empty()) {
    if (a.compare.size() != 2) throw InputError("--compare", "", "", "needs PREDICTED_DIR MEASURED_DIR");
    if (!a.results.empty()) throw InputError("gpurt plot", "give either RESULTS or --compare, not both");
    if (a.svg.empty())
      throw InputError("gpurt plot --compare", "give --svg FILE for the side-by-side picture");
    Trace predicted = load_examiner_results(result_files_in(a.compare[0]));
    Trace measured = load_examiner_results(result_files_in(a.compare[1]));
    apply_platform(predicted, platform);
    apply_platform(measured, platform);
    check_drawable(predicted, a.max_drawn_blocks);
    check_drawable(measured, a.max_drawn_blocks);
    outputs.emplace_back(a.svg, side_by_side_svg(predicted, measured));
    if (!a.cdf.empty()) {
      Chart c = response_time_cdf(predicted);
      for (ChartSeries& s : c.series) s.label = "predicted: " + s.label;
      for (ChartSeries& s : response_time_cdf(measured).series) {
        s.label = origin_word(measured) + ": " + s.label;
        c.series.push_back(std::move(s));
      }
      c.note = fmt::format("predicted ({}) vs {}", origin_word(predicted), origin_word(measured));
      outputs.emplace_back(a.cdf, chart_svg(c));
    }
  } else {
    if (a.results.empty())
      throw InputError("gpurt plot", "give RESULTS files or --compare PREDICTED_DIR MEASURED_DIR");
    if (a.svg.empty() && a.perfetto.empty() && a.cdf.empty())
      throw InputError("gpurt plot", "give --svg FILE, --perfetto FILE and/or --cdf FILE");
    Trace trace = load_examiner_results(a.results);
    apply_platform(trace, platform);
    if (!a.svg.empty() || !a.perfetto.empty()) check_drawable(trace, a.max_drawn_blocks);
    if (!a.svg.empty()) outputs.emplace_back(a.svg, render_svg_timeline(trace));
    if (!a.perfetto.empty()) outputs.emplace_back(a.perfetto, perfetto_trace_text(trace) + "\n");
    if (!a.cdf.empty()) outputs.emplace_back(a.cdf, chart_svg(response_time_cdf(trace)));
  }
  write_files_atomically(outputs);  // all or none
}

}  // namespace

void add_plot(CLI::App& app) {
  auto* plot =
      app.add_subcommand("plot", "Draw examiner result files (simulated or measured): timelines, CDFs");
  plot->footer(
      "Timelines have one lane per SM; --cdf draws each instance's response-time CDF (execute phase).\n"
      "Examples:\n"
      "  gpurt plot results/*.json --svg timeline.svg --cdf cdf.svg --platform jetson-tx2\n"
      "  gpurt plot --compare predicted/ measured/ --svg compare.svg --cdf compare-cdf.svg");
  auto pargs = std::make_shared<PlotArgs>();
  plot->add_option("RESULTS", pargs->results, "Examiner result files");
  plot->add_option("--compare", pargs->compare,
                   "PREDICTED_DIR MEASURED_DIR: the same config's result folders")
      ->expected(2);
  plot->add_option("--svg", pargs->svg, "Timeline picture to write (side by side with --compare)");
  plot->add_option("--perfetto", pargs->perfetto, "Chrome/Perfetto trace to write");
  plot->add_option("--cdf", pargs->cdf, "Response-time CDF picture to write");
  plot->add_option("--platform", pargs->platform, "GPU the results came from (SM count, lane scale)");
  plot->add_option("--max-drawn-blocks", pargs->max_drawn_blocks,
                   "Most blocks --svg/--perfetto draw (default 1000000; exit 1, writing nothing, "
                   "above it)")
      ->check(CLI::PositiveNumber);
  plot->callback([pargs] { run_plot(*pargs); });
}

}  // namespace gpurt::cli

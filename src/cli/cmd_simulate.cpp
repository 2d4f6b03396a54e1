// gpurt simulate CONFIG --platform NAME --out DIR [--svg FILE] [--perfetto FILE] [--json]
// gpurt plot RESULTS... --svg FILE [--platform NAME]
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/sim/simulate.hpp"
#include "gpurt/trace/examiner_json.hpp"
#include "gpurt/trace/render.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace fs = std::filesystem;

Platform load_platform_arg(const std::string& arg) {
  if (find_platform_preset(arg)) return *find_platform_preset(arg);
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) {
    const Json doc = load_json_file(arg);
    return parse_platform(JsonNode(doc, arg));
  }
  std::string ids;
  for (const Platform& p : platform_presets()) ids += " " + p.id;
  throw InputError("--platform", "", arg, "neither a preset nor a platform file (presets:" + ids + ")");
}

namespace {

struct SimulateArgs {
  std::string config, platform, out, svg, perfetto;
  bool json = false;
};

std::string output_path(const std::string& dir, const std::string& log_name) {
  const fs::path p(log_name);
  if (p.is_absolute()) return p.string();
  return (fs::path(dir) / p).string();
}

void run_simulate(const SimulateArgs& a) {
  const Platform platform = load_platform_arg(a.platform);
  const Scenario scenario = load_scenario(a.config, platform);
  const SimResult result = simulate(scenario, platform);
  // Only now, with every input checked and the run complete, is anything written.
  fs::create_directories(a.out);
  for (const InstanceTrace& inst : result.trace.instances) {
    const std::string path = output_path(a.out, inst.log_name);
    fs::create_directories(fs::path(path).parent_path());
    write_file_atomically(path, examiner_result(result.trace, inst).dump(2) + "\n");
  }
  if (!a.svg.empty()) write_file_atomically(a.svg, render_svg_timeline(result.trace));
  if (!a.perfetto.empty()) write_file_atomically(a.perfetto, perfetto_trace(result.trace).dump() + "\n");

  Json summary = Json::array();
  Table t({"instance", "plugin", "iterations", "kernels", "mean execute (s)", "worst execute (s)", "output"},
          {false, false, true, true, true, true, false});
  for (const InstanceTrace& inst : result.trace.instances) {
    std::int64_t kernels = 0;
    Nanos worst{0}, total{0};
    for (const IterationRecord& it : inst.iterations) {
      kernels += static_cast<std::int64_t>(it.kernels.size());
      const Nanos e = it.execute_end - it.execute_start;
      worst = std::max(worst, e);
      total += e;
    }
    const auto n = static_cast<std::int64_t>(inst.iterations.size());
    const Nanos mean = n ? Nanos{total.count() / n} : Nanos{0};
    const std::string path = output_path(a.out, inst.log_name);
    summary.push_back(Json{{"label", inst.label},
                           {"plugin", inst.benchmark_name},
                           {"iterations", n},
                           {"kernels", kernels},
                           {"mean_execute_s", from_nanos(mean, TimeUnit::s)},
                           {"worst_execute_s", from_nanos(worst, TimeUnit::s)},
                           {"output", path}});
    t.add({inst.label.empty() ? inst.log_name : inst.label, inst.benchmark_name, std::to_string(n),
           std::to_string(kernels), format_time(mean, TimeUnit::s), format_time(worst, TimeUnit::s), path});
  }
  if (a.json) {
    fmt::print("{}\n", Json{{"scenario", scenario.name},
                            {"platform", platform.id},
                            {"simulated", true},
                            {"blocks", result.stats.blocks},
                            {"end_time_s", from_nanos(result.stats.end_time, TimeUnit::s)},
                            {"instances", summary}}
                           .dump(2));
    return;
  }
  fmt::print("{} — simulated on {} ({} SMs): {} blocks, {} kernels, ends at {} s\n\n", scenario.name,
             platform.id, platform.sms, result.stats.blocks, result.stats.kernels,
             format_time(result.stats.end_time, TimeUnit::s));
  fmt::print("{}", t.render());
}

struct PlotArgs {
  std::vector<std::string> results;
  std::string svg, perfetto, platform;
};

void run_plot(const PlotArgs& a) {
  Trace trace = load_examiner_results(a.results);
  if (!a.platform.empty()) {
    const Platform p = load_platform_arg(a.platform);
    trace.sms = std::max(trace.sms, p.sms);
    trace.max_threads_per_sm = p.max_threads;
    if (trace.platform.empty()) trace.platform = p.id;
  }
  if (a.svg.empty() && a.perfetto.empty())
    throw InputError("gpurt plot", "give --svg FILE and/or --perfetto FILE");
  if (!a.svg.empty()) write_file_atomically(a.svg, render_svg_timeline(trace));
  if (!a.perfetto.empty()) write_file_atomically(a.perfetto, perfetto_trace(trace).dump() + "\n");
}

}  // namespace

void add_simulate(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("simulate", "Predict, block by block, what the GPU does with an examiner config");
  cmd->footer(
      "Reads a cuda_scheduling_examiner config (plugins timer_spin, timer_spin_default_stream,\n"
      "counter_spin, multikernel, stream_action) and writes one examiner result file per benchmark.\n"
      "Example:\n  gpurt simulate examples/sim/cut_ahead.json --platform jetson-tx2 --out results/ --svg "
      "cut.svg");
  auto args = std::make_shared<SimulateArgs>();
  cmd->add_option("CONFIG", args->config, "Examiner config (JSON)")->required();
  cmd->add_option("--platform", args->platform, "Preset id or platform file")->required();
  cmd->add_option("--out", args->out, "Folder for the result files")->required();
  cmd->add_option("--svg", args->svg, "Also write a timeline picture");
  cmd->add_option("--perfetto", args->perfetto, "Also write a Chrome/Perfetto trace (ui.perfetto.dev)");
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  cmd->callback([args] { run_simulate(*args); });

  auto* plot = app.add_subcommand("plot", "Draw examiner result files (simulated or measured) as a timeline");
  plot->footer("Example:\n  gpurt plot results/*.json --svg timeline.svg --platform jetson-tx2");
  auto pargs = std::make_shared<PlotArgs>();
  plot->add_option("RESULTS", pargs->results, "Examiner result files")->required();
  plot->add_option("--svg", pargs->svg, "Timeline picture to write");
  plot->add_option("--perfetto", pargs->perfetto, "Chrome/Perfetto trace to write");
  plot->add_option("--platform", pargs->platform, "GPU the results came from (SM count, lane scale)");
  plot->callback([pargs] { run_plot(*pargs); });
}

}  // namespace gpurt::cli

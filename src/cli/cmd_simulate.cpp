// gpurt simulate CONFIG --platform NAME --out DIR [--svg FILE] [--perfetto FILE] [--json]
#include <filesystem>

#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/bench/results.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/sim/simulate.hpp"
#include "gpurt/trace/render.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace fs = std::filesystem;

Platform load_platform_arg(const std::string& arg) {
  if (find_platform_preset(arg)) return *find_platform_preset(arg);
  std::error_code ec;
  // A file, or a pipe such as <(gpurt platforms h200 --json) or /dev/stdin (read as every input
  // is: a named FIFO nothing writes to is refused after a while).
  if (fs::exists(arg, ec) && !fs::is_directory(arg, ec)) {
    const Json doc = load_json_file(arg);
    return parse_platform(JsonNode(doc, arg));
  }
  std::string ids;
  for (const Platform& p : platform_presets()) ids += " " + p.id;
  throw InputError("--platform", "", arg, "neither a preset nor a platform file (presets:" + ids + ")");
}

Platform platform_arg(const std::string& arg, const std::string& option) {
  if (!find_platform_preset(arg)) {
    std::error_code ec;
    std::string ids;
    for (const Platform& p : platform_presets()) ids += " " + p.id;
    if (arg.empty()) throw InputError("command line", option, "\"\"", "give a preset id or a platform file");
    if (!fs::exists(arg, ec)) {
      throw InputError("command line", option, arg,
                       "no such platform file, and not a preset (presets:" + ids + ")");
    }
    if (fs::is_directory(arg, ec))
      throw InputError("command line", option, arg, "is a folder, not a platform file");
  }
  return load_platform_arg(arg);
}

CLI::Option* add_model_option(CLI::App* cmd, std::string& model) {
  return cmd->add_option(
      "--model", model,
      "Performance model: calibrated (default: the platform's fitted \"model\" section) or "
      "ideal (every block runs its isolated time)");
}

void add_config_limit_options(CLI::App* cmd, ConfigLimits& limits) {
  cmd->add_option(
         "--max-blocks", limits.max_blocks,
         "Most blocks the run may start (default 10000000); the config's gpurt_sim.max_blocks may only "
         "lower it")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option("--max-kernels", limits.max_kernels,
                  "Most kernel launches and iterations of the run (default 1000000); the config's "
                  "gpurt_sim.max_kernels may only lower it")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
}

CLI::Option* add_config_seed_option(CLI::App* cmd, std::string& seed) {
  // Text, so that a sweep's settings file records a left-out seed as "" (the config's), apart
  // from an explicit --seed 1.
  return cmd
      ->add_option("--seed", seed,
                   "Seed of the performance model's random draws (default: the config's "
                   "\"gpurt_sim\": {\"seed\": N}, else 1; same seed, same bytes)")
      ->type_name("UINT")
      ->check(seed_value());
}

void apply_config_seed_option(Scenario& scenario, const std::string& seed) {
  if (!seed.empty()) scenario.sim.seed = std::stoull(seed);  // seed_value() checked it
}

void apply_model_option(Platform& platform, const std::string& model) {
  if (model == "ideal") {
    platform.model = PerfParams{};
  } else if (model != "calibrated") {
    throw InputError("command line", "--model", model, "must be calibrated or ideal");
  }
}

std::string model_in_force(const Platform& platform) {
  return platform.model.ideal() ? "ideal" : "calibrated";
}

namespace {

struct SimulateArgs {
  std::string config, platform, out, svg, perfetto, model = "calibrated";
  std::uint64_t max_drawn_blocks = kDefaultMaxDrawnBlocks;
  ConfigLimits limits;
  std::string seed;  ///< --seed as given; "" (left out): the config's
  bool json = false;
};

void run_simulate(const SimulateArgs& a) {
  // Every output path is checked before anything runs; the outputs are written all or none.
  check_output_dir(a.out, "--out");
  if (!a.svg.empty()) check_output_file(a.svg, "--svg");
  if (!a.perfetto.empty()) check_output_file(a.perfetto, "--perfetto");
  // A picture named as the result folder (or above it) would become a folder when --out is made.
  if (!a.svg.empty()) check_file_outside_dir(a.svg, "--svg", a.out, "--out");
  if (!a.perfetto.empty()) check_file_outside_dir(a.perfetto, "--perfetto", a.out, "--out");
  Platform platform = platform_arg(a.platform);
  apply_model_option(platform, a.model);
  Scenario scenario = load_scenario(a.config, platform, a.limits);
  apply_config_seed_option(scenario, a.seed);
  check_run_outputs(scenario, a.out, {{"--svg", a.svg}, {"--perfetto", a.perfetto}}, {a.config, a.platform});
  const SimResult result = simulate(scenario, platform);
  // Only now, with every input checked and the run complete, is anything written.
  if (!a.svg.empty() || !a.perfetto.empty()) check_drawable(result.trace, a.max_drawn_blocks);
  std::vector<OutputFile> outputs = result_files(result.trace, a.out);
  if (!a.svg.empty()) outputs.emplace_back(a.svg, render_svg_timeline(result.trace));
  if (!a.perfetto.empty()) outputs.emplace_back(a.perfetto, perfetto_trace_text(result.trace) + "\n");
  write_outputs(outputs, a.out);

  const std::vector<InstanceSummary> rows = summarize(result.trace, a.out);
  if (a.json) {
    fmt::print("{}\n", Json{{"scenario", scenario.name},
                            {"platform", platform.id},
                            {"simulated", true},
                            {"blocks", result.stats.blocks},
                            {"end_time_s", from_nanos(result.stats.end_time, TimeUnit::s)},
                            {"instances", summary_json(result.trace, rows)}}
                           .dump(2));
    return;
  }
  fmt::print("{} — simulated on {} ({} SMs): {} blocks, {} kernels, ends at {} s\n\n", scenario.name,
             platform.id, platform.sms, result.stats.blocks, result.stats.kernels,
             format_time(result.stats.end_time, TimeUnit::s));
  fmt::print("{}", render_summary(rows));
}

}  // namespace

void add_simulate(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("simulate", "Predict, block by block, what the GPU does with an examiner config");
  cmd->footer(
      "Reads a cuda_scheduling_examiner config (plugins timer_spin, timer_spin_default_stream,\n"
      "counter_spin, sharedmem_timer_spin, multikernel, stream_action, matrix_multiply, random_walk,\n"
      "inorder_walk, mandelbrot, cpu_random_walk, task_host, cufft) and writes one examiner result\n"
      "file per benchmark.\n"
      "Example:\n  gpurt simulate examples/sim/cut_ahead.json --platform jetson-tx2 --out results/ --svg "
      "cut.svg");
  auto args = std::make_shared<SimulateArgs>();
  cmd->add_option("CONFIG", args->config, "Examiner config (JSON)")->required();
  cmd->add_option("--platform", args->platform, "Preset id or platform file")->required();
  cmd->add_option("--out", args->out, "Folder for the result files")->required();
  cmd->add_option("--svg", args->svg, "Also write a timeline picture");
  cmd->add_option("--perfetto", args->perfetto, "Also write a Chrome/Perfetto trace (ui.perfetto.dev)");
  cmd->add_option("--max-drawn-blocks", args->max_drawn_blocks,
                  "Most blocks --svg/--perfetto draw (default 1000000; the run stops with exit 1, "
                  "writing nothing, above it)")
      ->check(CLI::PositiveNumber);
  add_config_limit_options(cmd, args->limits);
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  add_model_option(cmd, args->model);
  add_config_seed_option(cmd, args->seed);
  cmd->callback([args] { run_simulate(*args); });
}

}  // namespace gpurt::cli

// gpurt bench CONFIG [--backend gpu|sim] [--platform NAME] [--out DIR] [--svg FILE] [--json]
//             [--timeout SECONDS] [--horizon T]
// CONFIG is an examiner config or a gpurt/system@1 file (model/system_scenario.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/bench/bench.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/report.hpp"
#include "gpurt/model/system_scenario.hpp"
#include "gpurt/trace/render.hpp"
#include "table.hpp"

namespace gpurt::cli {

std::string render_summary(const std::vector<InstanceSummary>& rows) {
  Table t({"instance", "plugin", "iterations", "kernels", "mean execute (s)", "worst execute (s)", "output"},
          {false, false, true, true, true, true, false});
  for (const InstanceSummary& r : rows) {
    t.add({r.name, r.plugin, std::to_string(r.iterations), std::to_string(r.kernels),
           format_time(r.mean_execute, TimeUnit::s), format_time(r.worst_execute, TimeUnit::s),
           printable(r.output)});  // --out is printed as given: an escape sequence in it is shown, not run
  }
  return t.render();
}

namespace {

struct BenchArgs {
  std::string config, backend = "sim", platform, out, svg, model = "calibrated";
  std::uint64_t max_drawn_blocks = kDefaultMaxDrawnBlocks;
  ConfigLimits limits;
  std::vector<std::string> plugin_libs;
  bool json = false;
  double timeout_s = 0;  // 0: none
  double horizon = 0;    // system files: release jobs until this time (file's unit); 0: the report's
};

// A gpurt/system@1 CONFIG: its scenario (one instance per task) on its own platform.
bool is_system_file(const Json& document) {
  const auto f = document.is_object() ? document.find("format") : document.end();
  return f != document.end() && f->is_string() && f->get<std::string>() == "gpurt/system@1";
}

Scenario system_bench_scenario(const BenchArgs& a, const Json& document, Platform& platform) {
  if (!a.platform.empty()) {
    throw InputError("--platform", "", a.platform, "a system file names its platform; leave --platform out");
  }
  const System system = parse_system(document, a.config);
  platform = system.platform;
  Nanos horizon = default_report_horizon(system);
  if (a.horizon > 0) horizon = horizon_arg(a.horizon, system.time_unit);
  return system_scenario(system, horizon, a.config);
}

// --timeout: a run that has not ended after `seconds` (a kernel that never ends, a worker stuck
// in a driver call, a simulation far longer than meant) ends the process with exit 1 and a
// message; nothing has been written by then (results are written after the run). Worker
// processes die with it (they are children with PR_SET_PDEATHSIG, runner.cpp); worker threads
// and GPU work cannot be stopped any other way.
class Watchdog {
 public:
  explicit Watchdog(double seconds) {
    if (seconds <= 0) return;
    _thread = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(_mutex);
      // Capped at 10^9 s (31 years): a longer duration would overflow the clock's time point.
      const std::chrono::duration<double> limit(std::min(seconds, 1e9));
      if (_cv.wait_for(lock, limit, [this] { return _done; })) return;
      std::fflush(stdout);
      fmt::print(stderr,
                 "gpurt: error: the run did not end within --timeout {} s (a hung kernel or worker?); "
                 "nothing was written\n",
                 seconds);
      std::fflush(stderr);
      _exit(1);
    });
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    if (!_thread.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(_mutex);
      _done = true;
    }
    _cv.notify_one();
    _thread.join();
  }

 private:
  std::mutex _mutex;
  std::condition_variable _cv;
  bool _done = false;
  std::thread _thread;
};

// Plugin libraries are user input: one that cannot be loaded is bad input (exit 2).
PluginRegistry load_libraries(const std::vector<std::string>& paths) {
  PluginRegistry libs;
  for (const std::string& p : paths) {
    try {
      load_plugin_library(p, libs);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError("--plugin-lib", e.what());
    }
  }
  return libs;
}

void run_bench_command(const BenchArgs& a) {
  const BenchBackend backend = parse_backend(a.backend);
  const Json document = load_json_file(a.config);
  const bool system_file = is_system_file(document);
  if (!system_file && a.horizon > 0) throw InputError("--horizon", "", "", "applies to system files only");
  if (system_file && !a.plugin_libs.empty()) {
    throw InputError("--plugin-lib", "", "", "a system file runs built-in plugins only");
  }
  Platform platform;
  Scenario system_run;
  if (system_file) {
    system_run = system_bench_scenario(a, document, platform);  // on the system's platform
  } else if (a.platform.empty() && backend == BenchBackend::sim) {
    throw InputError("--platform", "", "", "the sim backend needs the GPU to simulate (a preset id or file)");
  } else if (!a.platform.empty()) {
    platform = platform_arg(a.platform);
  } else {
    // gpu without --platform: the device's own numbers (the probe runs in a child process).
    const std::string why = gpu_backend_unavailable(Platform{});
    if (why.rfind("device 0 has ", 0) != 0) throw InputError("--backend gpu", "no usable GPU: " + why);
    throw InputError("--platform", "", "", "give the preset or platform file of this GPU (" + why + ")");
  }
  if (backend == BenchBackend::gpu && a.model != "calibrated") {
    throw InputError("--model", "", a.model,
                     "chooses the simulator's performance model; --backend gpu measures");
  }
  apply_model_option(platform, a.model);
  const PluginRegistry libraries = load_libraries(a.plugin_libs);
  const Scenario scenario = system_file
                                ? std::move(system_run)
                                : load_bench_scenario(a.config, platform, backend, &libraries, a.limits);
  // The examiner writes under base_result_directory; --out overrides it.
  const std::string out = !a.out.empty() ? a.out : scenario.base_result_directory;
  if (out.empty()) {
    throw InputError("--out", "", "",
                     "give the folder for the results (or set base_result_directory in the config)");
  }
  // A config names where its results go only below the folder gpurt runs in: as it may name
  // any file there, an absolute or ".." folder would let it write anywhere ("../../x" made
  // /tmp/x). --out, which the person running it gives, may be anything.
  if (a.out.empty()) {
    const std::filesystem::path dir(out);
    const bool up =
        std::any_of(dir.begin(), dir.end(), [](const std::filesystem::path& p) { return p == ".."; });
    if (dir.is_absolute() || up)
      throw InputError(a.config, "base_result_directory", out,
                       "must be a folder below the one gpurt runs in (no \"..\" part, not absolute); give "
                       "--out to write elsewhere");
  }
  // Every output path is checked before the run; the outputs are written all or none.
  check_output_dir(out, a.out.empty() ? "base_result_directory" : "--out");
  if (!a.svg.empty()) check_output_file(a.svg, "--svg");
  // A picture named as the result folder (or above it) would become a folder when it is made.
  if (!a.svg.empty())
    check_file_outside_dir(a.svg, "--svg", out, a.out.empty() ? "base_result_directory" : "--out");
  std::vector<std::string> inputs{a.config, a.platform};
  inputs.insert(inputs.end(), a.plugin_libs.begin(), a.plugin_libs.end());
  check_run_outputs(scenario, out, {{"--svg", a.svg}}, inputs);
  BenchResult result;
  {
    const Watchdog watchdog(a.timeout_s);
    result = run_bench(scenario, platform, backend, &libraries);
  }
  // Only now, with the whole run complete, is anything written.
  if (!a.svg.empty()) check_drawable(result.trace, a.max_drawn_blocks);
  std::vector<OutputFile> outputs = result_files(result.trace, out);
  if (!a.svg.empty()) outputs.emplace_back(a.svg, render_svg_timeline(result.trace));
  write_outputs(outputs, out);

  const std::vector<InstanceSummary> rows = summarize(result.trace, out);
  const bool sim = backend == BenchBackend::sim;
  // The config's "gpurt_sim": {"model": "ideal"} asks for the ideal model too.
  const std::string model = scenario.sim.ideal_model ? "ideal" : model_in_force(platform);
  if (a.json) {
    Json summary{
        {"scenario", scenario.name}, {"platform", platform.id}, {"backend", a.backend}, {"simulated", sim}};
    if (sim) summary["model"] = model;
    summary["instances"] = summary_json(result.trace, rows);
    fmt::print("{}\n", summary.dump(2));
    return;
  }
  fmt::print("{} — {} on {} ({} SMs{})\n\n", scenario.name, sim ? "simulated" : "measured", platform.id,
             platform.sms, sim ? ", " + model + " model" : "");
  fmt::print("{}", render_summary(rows));
}

}  // namespace

void add_bench(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("bench", "Run an examiner config on the GPU (measure) or the simulator (predict)");
  cmd->footer(
      "Every benchmark instance runs as a thread (or a process with \"use_processes\"), on its own\n"
      "stream, after its release_time, for max_iterations or max_time. One examiner result file per\n"
      "instance, the same schema for both backends. --backend gpu needs a CUDA GPU and exits 2 without\n"
      "one; plugins: timer_spin, timer_spin_default_stream, counter_spin, multikernel, stream_action,\n"
      "matrix_multiply, random_walk, cufft; more from plugin libraries (--plugin-lib, gpu only).\n"
      "A gpurt/system@1 CONFIG runs one instance per task (labelled with its name) on the system's\n"
      "platform, jobs released periodically until --horizon (docs/report.md).\n"
      "See docs/bench.md.\n"
      "Examples:\n"
      "  gpurt bench examples/sim/cut_ahead.json --backend sim --platform jetson-tx2 --out predicted/\n"
      "  gpurt bench examples/sim/cut_ahead.json --backend gpu --platform h100 --out measured/\n"
      "  gpurt plot --compare predicted/ measured/ --svg compare.svg");
  auto args = std::make_shared<BenchArgs>();
  cmd->add_option("CONFIG", args->config, "Examiner config (JSON)")->required();
  cmd->add_option("--backend", args->backend, "gpu (measure) or sim (predict; default)");
  cmd->add_option("--platform", args->platform, "Preset id or platform file (the GPU, real or simulated)");
  cmd->add_option("--out", args->out,
                  "Folder for the result files (default: the config's base_result_directory)");
  cmd->add_option("--svg", args->svg, "Also write a timeline picture");
  cmd->add_option("--max-drawn-blocks", args->max_drawn_blocks,
                  "Most blocks --svg draws (default 1000000; the run stops with exit 1, "
                  "writing nothing, above it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--plugin-lib", args->plugin_libs,
                  "A plugin library (shared object exporting gpurt_bench_plugins) to load; repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  add_config_limit_options(cmd, args->limits);
  add_model_option(cmd, args->model);
  cmd->add_option("--timeout", args->timeout_s,
                  "End the run with exit 1 if it has not ended after this many seconds (default: no limit)")
      ->check(finite_positive());
  cmd->add_option("--horizon", args->horizon,
                  "System files: release jobs until this time (file's unit; default: the report's horizon)")
      ->check(finite_positive());
  cmd->callback([args] { run_bench_command(*args); });
}

}  // namespace gpurt::cli

// gpurt calibrate --platform BASE --measured DIR --out PLATFORM.json: fits the performance model
// (exp/calibrate.hpp) to result files a GPU measured for the bundled calibration configs.
#include <algorithm>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/bench/plots.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/calibrate.hpp"
#include "gpurt/trace/examiner_json.hpp"

namespace gpurt::cli {

namespace {

namespace fs = std::filesystem;

struct CalibrateArgs {
  std::string platform, measured, configs, out, fit;  // configs, fit: by vendor when empty
  bool json = false, fit_given = false;
  bool check = false;  // fit nothing: the residuals of the platform as given (a held-out check)
  bool seed_given = false, sweeps_given = false;
  std::uint64_t seed = 1;
  int sweeps = 10;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

void run_calibrate(const CalibrateArgs& args) {
  const Platform base = load_platform_arg(args.platform);
  // An AMD GPU with shader engines calibrates its dispatch rules (examples/calibration-amd),
  // every other platform its block-time model (examples/calibration).
  const bool amd = base.vendor == Vendor::amd && base.shader_engines > 0;
  CalibrateArgs a = args;
  if (a.configs.empty()) a.configs = amd ? "examples/calibration-amd" : "examples/calibration";
  if (a.check) {  // nothing is fitted, so nothing is written
    if (a.fit_given)
      throw InputError("command line", "--fit", a.fit,
                       "is not taken with --check, which fits nothing and reports the residuals of "
                       "--platform as given");
    if (!a.out.empty())
      throw InputError("command line", "--out", a.out,
                       "is not taken with --check, which fits nothing and writes no platform");
    if (a.sweeps_given)
      throw InputError("command line", "--sweeps", std::to_string(a.sweeps),
                       "is not taken with --check, which fits nothing (--sweeps counts the fit's "
                       "passes)");
  } else {
    if (a.out.empty())
      throw InputError("command line", "--out", "(none)",
                       "is required: the platform file the fit writes (or give --check to only "
                       "compare --platform with the measurements)");
    check_output_file(a.out, "--out");
    // The fitted platform must not land among the inputs: inside --measured it would be read as
    // a result file by the next fit (or replace one), inside --configs as a config; over the
    // base platform file it would replace what the fit started from.
    check_output_outside(a.out, a.measured, "--out");
    check_output_outside(a.out, a.configs, "--out");
    check_output_not_input(a.out, {a.platform}, "--out");
  }
  if (a.fit_given &&
      (a.fit.empty() || a.fit.front() == ',' || a.fit.back() == ',' || a.fit.find(",,") != std::string::npos))
    throw InputError("command line", "--fit", a.fit,
                     "has an empty item: name parameters separated by commas");
  std::error_code ec;
  if (!fs::is_directory(a.configs, ec))
    throw InputError("command line", "--configs", a.configs, "is not a folder of calibration configs");
  std::vector<std::string> configs;
  for (const auto& e : fs::directory_iterator(a.configs)) {
    if (e.path().extension() != ".json") continue;
    // A FIFO would block the read for ever, a folder is no config: refused by name.
    if (!e.is_regular_file(ec))
      throw InputError("command line", "--configs", a.configs,
                       fmt::format("{} is not a regular file", e.path().filename().string()));
    configs.push_back(e.path().string());
  }
  std::sort(configs.begin(), configs.end());
  if (configs.empty()) throw InputError("command line", "--configs", a.configs, "holds no .json config");
  // Inputs: config C's measurement is every result file in MEASURED/<C's file stem>/.
  std::vector<CalibrationCase> cases;
  for (const std::string& config : configs) {
    CalibrationCase c;
    c.name = fs::path(config).stem().string();
    c.config_file = config;
    c.scenario = load_scenario(config, base);
    if (a.check && a.seed_given) c.scenario.sim.seed = a.seed;  // as `gpurt simulate --seed`
    const std::string dir = (fs::path(a.measured) / c.name).string();
    if (!fs::is_directory(dir, ec))
      throw InputError("command line", "--measured", a.measured,
                       fmt::format("has no folder \"{}\" of result files for {}", c.name, config));
    c.measured_folder = dir;
    const std::vector<std::string> files = result_files_in(dir);
    c.measured = load_examiner_results(files);
    // Instances are matched by their log_name: the result file's path inside its folder.
    for (InstanceTrace& inst : c.measured.instances)
      inst.log_name = fs::path(inst.log_name).lexically_relative(dir).generic_string();
    if (!a.json) fmt::print(stderr, "calibrate: {} <- {} result file(s) in {}\n", config, files.size(), dir);
    cases.push_back(std::move(c));
  }
  CalibrateOptions o;
  o.seed = a.seed;
  o.sweeps = a.sweeps;
  if (a.check) {
    // Every config simulated as `gpurt simulate` and `gpurt bench --backend sim` simulate it (its
    // own seed, or --seed in its place, and no seed of calibrate's own mixed in), so that the
    // check compares the very numbers those commands predict.
    o.fit.clear();
    o.seed = 0;
    o.spans = amd;  // the statistics an AMD fit compares: the dispatch rules show in the spans
  } else if (a.fit_given) {
    o.fit = split(a.fit);
  } else if (amd) {
    o.fit = amd_dispatch_fit();
  }
  const CalibrationResult r = calibrate(base, cases, o);
  if (!a.check) {
    Platform fitted = base;
    fitted.model = r.params;
    write_file_atomically(a.out, to_json(fitted).dump(2) + "\n");
  }

  if (a.json) {
    Json residuals = Json::array();
    for (const auto& s : r.residuals) {
      Json row{{"statistic", s.name},
               {"measured_ns", s.measured_ns},
               {"simulated_ns", s.fitted_ns},
               {"log_error", s.log_error()}};
      if (!a.check) row["fitted_ns"] = s.fitted_ns;  // the same number, under its older name
      residuals.push_back(std::move(row));
    }
    Json doc{
        {"platform", a.check ? a.platform : a.out}, {"model", to_json(r.params)},   {"fitted", o.fit},
        {"rms_log_error", r.rms_log_error},         {"evaluations", r.evaluations}, {"residuals", residuals}};
    if (a.check) doc["check"] = true;
    if (r.random_walk_ns_per_access > 0) doc["random_walk_ns_per_access"] = r.random_walk_ns_per_access;
    fmt::print("{}\n", doc.dump(2));
    return;
  }
  std::size_t width = 28;  // the statistics' names, in one column
  for (const auto& s : r.residuals) width = std::max(width, s.name.size());
  if (a.check) {
    fmt::print(
        "{}: {} as given, nothing fitted ({} config{}, each simulated as `gpurt simulate` "
        "simulates it; a random walk takes its config's latency)\n",
        a.platform, base.id, cases.size(), cases.size() == 1 ? "" : "s");
    fmt::print("residuals (ln simulated/measured), rms {:.4f}:\n", r.rms_log_error);
    for (const auto& s : r.residuals)
      fmt::print("  {:<{}} measured {:>12.0f} ns  simulated {:>12.0f} ns  {:+.4f}\n", s.name, width,
                 s.measured_ns, s.fitted_ns, s.log_error());
    return;
  }
  fmt::print("{}: {} with the fitted performance model ({} simulations of {} configs)\n", a.out, base.id,
             r.evaluations, cases.size());
  const auto remark = [&](const std::string& name) -> std::string {
    if (name == "memory_bandwidth" && r.params.memory_bandwidth == 0) return " (unlimited: never reached)";
    if (name == "lone_kernel_blocks")
      return r.params.lone_kernel_blocks == 0
                 ? " (measured: a lone kernel filled the GPU, no bound below that)"
                 : " (measured: the most blocks of a lone kernel resident at once)";
    return "";
  };
  for (const std::string& name : o.fit)
    if (name != "random_walk_ns_per_access")
      fmt::print("  {:<18} {:.4f}{}\n", name, to_json(r.params)[name].get<double>(), remark(name));
  if (r.random_walk_ns_per_access > 0)
    fmt::print(
        "  random_walk_ns_per_access {:.1f} ns: not a platform parameter; a config that walks memory\n"
        "  on this GPU takes it as \"gpurt_sim\": {{\"random_walk_ns_per_access\": {:.1f}}}\n",
        r.random_walk_ns_per_access, r.random_walk_ns_per_access);
  fmt::print("residuals (ln simulated/measured), rms {:.4f}:\n", r.rms_log_error);
  for (const auto& s : r.residuals)
    fmt::print("  {:<{}} measured {:>12.0f} ns  fitted {:>12.0f} ns  {:+.4f}\n", s.name, width, s.measured_ns,
               s.fitted_ns, s.log_error());
}

}  // namespace

void add_calibrate(CLI::App& app) {
  auto* cmd = app.add_subcommand("calibrate", "Fit a platform's performance model to measured result files");
  cmd->footer(
      "Simulates each calibration config (--configs) and fits the platform's \"model\" parameters\n"
      "so that per-instance statistics of the block times (10th percentile, mean, 90th percentile;\n"
      "10th and 90th percentiles of a launch's mean block time) match the result files measured\n"
      "for it in MEASURED/<config name>/ (what `gpurt bench CONFIG --backend gpu --out\n"
      "MEASURED/<config name>` writes; scripts/gpu-check does it). Fitting a dispatch parameter\n"
      "(wave_release, block_dispatch_ns, cu_lock_threshold) also compares the kernel spans.\n"
      "Defaults: NVIDIA: --configs examples/calibration, --fit switch_cost,coresidence_cost,\n"
      "spread_cost,jitter,kernel_jitter,memory_bandwidth,random_walk_ns_per_access (the last:\n"
      "the latency of the bandwidth config's random walk, which is printed, not written into\n"
      "the platform); AMD with shader engines: --configs\n"
      "examples/calibration-amd, --fit lone_kernel_blocks,wave_release,cu_lock_threshold,\n"
      "block_dispatch_ns,kernel_jitter (measured by a HIP build of the examiner;\n"
      "lone_kernel_blocks is read off the lone config: the most of a launch's blocks resident at\n"
      "once, 0 when that is all the GPU holds). Writes the platform with the\n"
      "fitted model, which every other command accepts as --platform FILE. With --check it fits\n"
      "nothing, writes nothing, and prints the residuals of --platform as given (a random walk\n"
      "takes its config's own latency): a check of a fitted platform on held-out measurements.\n"
      "Examples:\n  gpurt calibrate --platform h100 --measured gpu-results/calibration --out "
      "h100-fitted.json\n  gpurt calibrate --check --platform h100-fitted.json --configs held-out-configs "
      "--measured gpu-results/held-out");
  auto a = std::make_shared<CalibrateArgs>();
  cmd->add_option("--platform", a->platform, "Base platform: preset id or platform file")->required();
  cmd->add_option("--measured", a->measured, "Folder with one result folder per calibration config")
      ->required();
  cmd->add_option("--configs", a->configs,
                  "Folder of calibration configs (default examples/calibration, or examples/calibration-amd "
                  "on an AMD platform)");
  cmd->add_option("--out", a->out, "Platform file to write (required unless --check)");
  auto* fit =
      cmd->add_option("--fit", a->fit,
                      "Parameters to fit, comma-separated (default "
                      "switch_cost,coresidence_cost,spread_cost,jitter,kernel_jitter,memory_bandwidth,"
                      "random_walk_ns_per_access; on an AMD platform "
                      "lone_kernel_blocks,wave_release,cu_lock_threshold,block_dispatch_ns,kernel_jitter)");
  auto* seed = cmd->add_option("--seed", a->seed,
                               "Seed of the simulations (default 1; with --check: each config's own, as "
                               "`gpurt simulate`, unless given)")
                   ->check(seed_value());
  auto* sweeps =
      cmd->add_option("--sweeps", a->sweeps,
                      "Coordinate-descent passes over the parameters (default 10; fewer: faster, coarser)")
          ->check(CLI::Range(1, 100));
  cmd->add_flag("--json", a->json, "Print the fit and its residuals as JSON");
  cmd->add_flag("--check", a->check,
                "Fit nothing: simulate the configs on --platform as given and print the residuals "
                "(a check of a platform fitted elsewhere against measurements held out of its fit); "
                "takes no --fit, --out or --sweeps");
  cmd->callback([a, fit, seed, sweeps] {
    a->fit_given = fit->count() > 0;
    a->sweeps_given = sweeps->count() > 0;
    a->seed_given = seed->count() > 0;
    run_calibrate(*a);
  });
}

}  // namespace gpurt::cli

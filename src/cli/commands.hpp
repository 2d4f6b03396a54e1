// The `gpurt` command: one file per subcommand, each adding itself to the app.
// Subcommand callbacks may throw gpurt::InputError (exit 2) or gpurt::Error (exit 1);
// main() alone turns errors into messages and exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gpurt/bench/results.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt::cli {

/// Exit status a subcommand asks for (0 unless it set one, e.g. --check on an unschedulable system).
inline int& exit_status() {
  static int status = 0;
  return status;
}

void add_platforms(CLI::App& app);
void add_analyze(CLI::App& app);
void add_analyze_pbs(CLI::App& analyze);  // cmd_analyze_pbs.cpp
void add_device(CLI::App& app);
void add_generate(CLI::App& app);
void add_simulate(CLI::App& app);
void add_calibrate(CLI::App& app);  // cmd_calibrate.cpp
void add_plot(CLI::App& app);       // cmd_plot.cpp
void add_bench(CLI::App& app);      // cmd_bench.cpp
/// A preset id or a platform file (cmd_simulate.cpp). Throws InputError.
Platform load_platform_arg(const std::string& arg);
/// load_platform_arg with a message naming `option` and the value when `arg` is neither a preset
/// nor a readable platform file (missing, a folder). Throws InputError.
Platform platform_arg(const std::string& arg, const std::string& option = "--platform");
/// `--model ideal|calibrated` (cmd_simulate.cpp): which performance model the simulator uses.
CLI::Option* add_model_option(CLI::App* cmd, std::string& model);
/// `--max-blocks` and `--max-kernels` (cmd_simulate.cpp) of a command that simulates an examiner
/// config: what the config's gpurt_sim.max_blocks / max_kernels default to and may not exceed.
void add_config_limit_options(CLI::App* cmd, ConfigLimits& limits);
/// `--seed` (cmd_simulate.cpp) of a command that simulates an examiner config: the performance
/// model's random draws, in place of the config's "gpurt_sim": {"seed": N}.
CLI::Option* add_config_seed_option(CLI::App* cmd, std::string& seed);
/// The config's seed replaced by `seed` unless it is "" (left out).
void apply_config_seed_option(Scenario& scenario, const std::string& seed);
/// Applies a --model value: "ideal" clears the platform's model; "calibrated" keeps it.
/// Throws InputError for other values.
void apply_model_option(Platform& platform, const std::string& model);
/// The model in force on `platform` (after apply_model_option), as the outputs name it:
/// "ideal" when its model section is all off (asked for, or none fitted), else "calibrated".
std::string model_in_force(const Platform& platform);
/// The per-instance summary table of `gpurt simulate` and `gpurt bench` (cmd_bench.cpp).
std::string render_summary(const std::vector<InstanceSummary>& rows);
void add_analyze_rtgpu(CLI::App& analyze);     // cmd_analyze_rtgpu.cpp
void add_generate_rtgpu(CLI::App& generate);   // cmd_generate_rtgpu.cpp
void add_generate_signal(CLI::App& generate);  // cmd_generate_signal.cpp
void add_sweep_rtgpu(CLI::App& app);           // cmd_sweep_rtgpu.cpp
void add_simulate_table(CLI::App& app);        // cmd_simulate_table.cpp
void add_dispatch_table(CLI::App& app);        // cmd_simulate_table.cpp
void add_simulate_system(CLI::App& app);
void add_chart(CLI::App& app);           // cmd_chart.cpp
void add_sweep_pbs(CLI::App& app);       // cmd_sweep_pbs.cpp
void add_sweep_merge(CLI::App& app);     // cmd_sweep_merge.cpp
void add_simulate_rtgpu(CLI::App& app);  // cmd_simulate_rtgpu.cpp
void add_fft(CLI::App& app);             // cmd_fft.cpp
void add_sweep_fft(CLI::App& app);       // cmd_sweep_fft.cpp
void add_sweep_nn(CLI::App& app);        // cmd_sweep_nn.cpp
void add_sweep_cu(CLI::App& app);        // cmd_sweep_cu.cpp
void add_report(CLI::App& app);          // cmd_report.cpp
void add_convert(CLI::App& app);         // cmd_convert.cpp

}  // namespace gpurt::cli

// gpurt sweep nn: the Dissertation's neural-network sharing experiments (§6.2 Table 6.1, §6.3
// Table 6.3) on the simulator, as CSV. Every number is SIMULATED (docs/simulator.md
// "Neural-network tasks": the workload model and which seed numbers it was fitted to).
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/nn_sweep.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {
struct SweepNnArgs {
  NnSweepOptions options;
  std::string platform = "radeon-vii", model = "calibrated", tables = "6.1,6.2,6.3";
  double seconds = 60, memory_bandwidth = -1, stall_ms = -1, lock_handoff_ms = -1, launch_cpu_us = -1,
         host_per_image_us = -1;
  SweepRunArgs run;
};

std::vector<std::string> split_tables(const std::string& s) {
  std::vector<std::string> out = split_commas(s);
  for (const std::string& t : out)
    if (t != "6.1" && t != "6.2" && t != "6.3" && t != "6.3:none" && t != "6.3:small" && t != "6.3:medium" &&
        t != "6.3:large")
      throw InputError(
          "command line", "--tables", s,
          "tables are 6.1, 6.2 and/or 6.3 (or one 6.3 group: 6.3:none, 6.3:small, 6.3:medium, 6.3:large)");
  // A table named twice (or 6.3 with one of its groups) would run its scenarios twice.
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out[i] == out[j] || out[i].rfind(out[j] + ":", 0) == 0 || out[j].rfind(out[i] + ":", 0) == 0)
        throw InputError("command line", "--tables", s, out[i] + " repeats " + out[j]);
  return out;
}

void run_sweep_nn(const SweepNnArgs& a) {
  NnSweepOptions o = a.options;
  o.tables = split_tables(a.tables);
  o.platform = platform_arg(a.platform);
  apply_model_option(o.platform, a.model);
  if (o.platform.vendor != Vendor::amd || o.platform.shader_engines <= 0 || o.platform.sms % 4 != 0)
    throw InputError(
        "command line", "--platform", a.platform,
        "needs an AMD platform with shader engines and a CU count divisible by 4 (the seed: radeon-vii)");
  for (const std::string& t : o.tables)
    if (t.starts_with("6.3") && o.platform.sms <= 30)
      throw InputError("command line", "--platform", a.platform,
                       fmt::format("has {} CUs: table 6.3 gives the measured task 15, 20 or 30 CUs and its "
                                   "competitors the rest, so it needs more than 30",
                                   o.platform.sms));
  if (a.memory_bandwidth > 0 && a.memory_bandwidth < kMinMemoryBandwidth)  // as in a platform file
    throw InputError("command line", "--memory-bandwidth", fmt::format("{}", a.memory_bandwidth),
                     "must be 0 (unlimited) or in 0.01..1000000");
  if (a.memory_bandwidth >= 0) o.platform.model.memory_bandwidth = a.memory_bandwidth;
  if (a.stall_ms >= 0) o.model.stall = Nanos{std::llround(a.stall_ms * 1e6)};
  if (a.lock_handoff_ms >= 0) o.model.lock_handoff = Nanos{std::llround(a.lock_handoff_ms * 1e6)};
  if (a.launch_cpu_us >= 0) o.model.launch_cpu = Nanos{std::llround(a.launch_cpu_us * 1e3)};
  if (a.host_per_image_us >= 0) o.model.host_per_image = Nanos{std::llround(a.host_per_image_us * 1e3)};
  if (a.host_per_image_us >= 0 && o.model.launch_cpu == Nanos{0})
    throw InputError("command line", "--host-per-image-us", fmt::format("{}", a.host_per_image_us),
                     "applies only to pipelined launches: --launch-cpu-us 0 turns them off");
  o.duration = Nanos{static_cast<std::int64_t>(a.seconds * 1e9)};
  const std::string note =
      fmt::format("SIMULATED on {} ({} s per scenario, seed {})", o.platform.id, a.seconds, o.seed);
  SweepPlot plot;
  plot.title = fmt::format("Network tasks on {}: job times per scenario (simulated)", o.platform.id);
  plot.x = "point";
  plot.x_label = "scenario (CSV point)";
  plot.y_label = "job time (ms)";
  plot.note = note;
  plot.ys = {"min_ms", "mean_ms", "max_ms"};
  plot.lines = false;  // one row per scenario: neighbouring scenarios are no curve
  SweepRunArgs run = a.run;
  run.inputs = {a.platform};
  run_sweep_command(nn_sweep_experiment(o), run, plot);
}
}  // namespace

void add_sweep_nn(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand(
      "nn",
      "Dissertation §6.2-6.3: US-MobileNet tasks under locking and partitioning (Tables 6.1-6.3) (CSV)");
  cmd->footer(
      "Every number is SIMULATED: the workload model of docs/simulator.md \"Neural-network tasks\"\n"
      "(Table 5.2's kernel times, and its job times for the host's pipelined launches; kernel\n"
      "parallelism and memory-bound fraction fitted to Table 6.3's four isolated means, host jitter\n"
      "to its isolated standard deviation, host stalls to two of its isolated maxima, the per-job\n"
      "lock hand-off to one Table 6.2 mean and its draw's shape to one Table 6.1 spread, the memory\n"
      "phases to one contended Table 6.3 cell; nothing else). docs/validation.md compares each row\n"
      "with the seed.\n"
      "Example (all three tables, 10 simulated seconds per scenario):\n"
      "  gpurt sweep nn --seconds 10 --out nn.csv");
  auto a = std::make_shared<SweepNnArgs>();
  NnSweepOptions& o = a->options;
  cmd->add_option("--platform", a->platform, "AMD platform preset or file (default radeon-vii)");
  add_model_option(cmd, a->model);
  cmd->add_option("--tables", a->tables,
                  "Comma-separated: 6.1, 6.2, 6.3 (default all three); 6.3:none (small, medium, large) runs "
                  "one 6.3 group");
  cmd->add_option("--seconds", a->seconds, "Simulated seconds per scenario (default 60, as the seed)")
      ->check(finite_in(1e-6, 1e6));
  cmd->add_option("--warmup-jobs", o.warmup_jobs, "Unmeasured first jobs per task (default 2, as the seed)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("--seed", o.seed, "RNG seed (CPU jitter, performance model)")->check(seed_value());
  cmd->add_option("--max-jobs", o.max_jobs, "Refuse a scenario completing more jobs (default 1000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
  cmd->add_option("--reference-blocks", o.model.reference_blocks,
                  "Blocks per kernel of the medium task (default: the fitted value)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--memory-fraction", o.model.memory_fraction,
                  "Memory-bound part of every block (default: the fitted value)")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option(
         "--memory-bound-kernels", o.model.memory_bound_kernels,
         "Share of a job's kernels, from its first, whose blocks are --memory-fraction memory-bound; "
         "the rest --late-memory-fraction (default: the fitted value)")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option(
         "--late-memory-fraction", o.model.late_memory_fraction,
         "Memory-bound part of the blocks after the memory-bound kernels (default: the fitted value)")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option("--memory-bandwidth", a->memory_bandwidth,
                  "Override the platform's model.memory_bandwidth (resident blocks' summed memory fractions)")
      ->check(finite_in(0.0, 1e6));
  cmd->add_option(
         "--cpu-jitter", o.model.cpu_jitter,
         "Host time x (1 + U(-J, J)), one draw a job with pipelined launches (default: the fitted value)")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option("--stall-probability", o.model.stall_probability,
                  "Chance that a job's host side stalls (default: the fitted value)")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option("--stall-ms", a->stall_ms, "Longest host stall, ms: U(0, S) (default: the fitted value)")
      ->check(finite_in(0.0, 3.6e6));
  cmd->add_option(
         "--lock-handoff-ms", a->lock_handoff_ms,
         "Per-job lock: mean delay of a task granted the lock after waiting for it, ms (default: the "
         "fitted value)")
      ->check(finite_in(0.0, 3.6e6));
  cmd->add_option("--lock-handoff-jitter", o.model.lock_handoff_jitter,
                  "Per-job lock: each hand-off takes H x (1 + U(-J, J)) (default 1: U(0, 2H))")
      ->check(finite_in(0.0, 1.0));
  cmd->add_option("--launch-cpu-us", a->launch_cpu_us,
                  "Pipelined launches: host time before each kernel launch, us (0: the two CPU segments; "
                  "default: the fitted value)")
      ->check(finite_in(0.0, 1e6));
  cmd->add_option("--host-per-image-us", a->host_per_image_us,
                  "Pipelined launches: serial host time per image of the batch before the first launch, us "
                  "(default: the fitted value)")
      ->check(finite_in(0.0, 1e6));
  add_sweep_run_options(cmd, a->run);
  cmd->callback([a] { run_sweep_nn(*a); });
}

}  // namespace gpurt::cli

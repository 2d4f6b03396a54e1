// gpurt sweep rtgpu: acceptance ratio vs utilisation (RTGPU seed §6.2, Figures 8-11) as CSV, on
// the general sweep runner (parallel, resumable, sharded), optionally drawn as SVG.
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/exp/rtgpu_sweep.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {
struct SweepArgs {
  RtgpuSweepOptions options;
  double u_min = 0.2, u_max = 4.0, u_step = 0.2;
  bool one_copy = false;
  std::string lengths = "worst";
  std::string search = "exact";
  std::string title;
  SweepRunArgs run;
};

void run_sweep(const SweepArgs& a) {
  RtgpuSweepOptions o = a.options;
  o.generator.two_copies = !a.one_copy;
  o.lengths = a.lengths == "worst"     ? RtgpuLengths::worst
              : a.lengths == "average" ? RtgpuLengths::average
                                       : RtgpuLengths::average_all;
  o.search = a.search == "greedy" ? RtgpuSearch::greedy : RtgpuSearch::exact;
  o.generator.utilization_option = "--u-min/--u-max/--u-step";
  o.utilizations = sweep_range(a.u_min, a.u_max, a.u_step, "--u-min/--u-max/--u-step");
  SweepPlot plot;
  plot.title = !a.title.empty()
                   ? a.title
                   : fmt::format("RTGPU: {} tasks, {} subtasks, {} SMs, CPU:susp. scale {}, {}",
                                 o.generator.tasks, o.generator.subtasks, o.generator.physical_sms,
                                 o.generator.suspension_scale, a.one_copy ? "one copy" : "two copies");
  plot.x = "utilization";
  plot.y_label = "acceptance ratio";
  plot.note = fmt::format("analysis{}, {} task sets a point, seed {}",
                          o.lengths == RtgpuLengths::worst     ? ""
                          : o.lengths == RtgpuLengths::average ? " of average copy and GPU lengths"
                                                               : " of average lengths",
                          o.sets_per_point, o.seed);
  if (o.generator.lower_fraction < 1)
    plot.note += fmt::format(", lower bounds {} x upper", o.generator.lower_fraction);
  if (o.simulate_jobs > 0) {
    plot.note += fmt::format("; simulated: RTGPU allocation, {} jobs a task at {}", o.simulate_jobs,
                             o.lengths == RtgpuLengths::worst ? "upper bounds" : "random lengths");
  }
  for (RtgpuMethod m : o.methods) plot.ys.emplace_back(to_string(m));
  if (o.simulate_jobs > 0) plot.ys.emplace_back("simulated");
  run_sweep_command(rtgpu_sweep_experiment(o), a.run, plot);
}
}  // namespace

void add_sweep_rtgpu(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand(
      "rtgpu", "RTGPU §6.2: acceptance ratio vs utilisation, four methods (CSV, optional SVG)");
  cmd->footer(
      "Example (Figure 8 (b), two copies):\n"
      "  gpurt sweep rtgpu --suspension-scale 2 --sets 100 --seed 1 --out fig8b.csv --plot fig8b.svg\n"
      "Example (Figure 12: analysis against the simulator, 8 SMs):\n"
      "  gpurt sweep rtgpu --sms 8 --simulate 20 --sets 100 --seed 1 --out fig12-sms8.csv\n"
      "Example (Figure 13: the same with average lengths, lower bounds half the upper):\n"
      "  gpurt sweep rtgpu --sms 8 --simulate 20 --lengths average --lower-fraction 0.5 --out "
      "fig13-sms8.csv");
  auto a = std::make_shared<SweepArgs>();
  RtgpuSweepOptions& o = a->options;
  cmd->add_option("--sets", o.sets_per_point, "Task sets per point (default 100)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--seed", o.seed, "RNG seed")->check(seed_value());
  cmd->add_option("--u-min", a->u_min, "First utilisation (default 0.2)")->check(finite_in(0.001, 10000));
  cmd->add_option("--u-max", a->u_max, "Last utilisation (default 4.0)")->check(finite_in(0.001, 10000));
  cmd->add_option("--u-step", a->u_step, "Step (default 0.2; at most 10000 points)")
      ->check(finite_positive());
  cmd->add_option("--tasks", o.generator.tasks, "Tasks N (Table 1: 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--subtasks", o.generator.subtasks, "CPU segments M (Table 1: 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--sms", o.generator.physical_sms, "Physical SMs (Table 1: 10)")
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--suspension-scale", o.generator.suspension_scale,
                  "Copy and GPU range scale (Fig. 8: 0.5, 2, 8)")
      ->check(finite_in(0.001, 1e6));
  cmd->add_flag("--one-copy", a->one_copy, "One combined copy per GPU segment");
  cmd->add_option("--simulate", o.simulate_jobs,
                  "Also run each set on the simulator (RTGPU allocation, upper-bound lengths, synchronous "
                  "releases) for this many jobs a task: column 'simulated', the share with no deadline miss")
      ->check(CLI::Range(1, 100'000));
  cmd->add_option(
         "--lengths", a->lengths,
         "worst (default): the analyses see upper bounds and --simulate runs them (Fig. 12); "
         "average: the analyses see every copy and GPU segment at its mean and --simulate draws "
         "random lengths within the bounds (Fig. 13); average-all: the CPU segments at their means too")
      ->check(CLI::IsMember({"worst", "average", "average-all"}));
  cmd->add_option("--lower-fraction", o.generator.lower_fraction,
                  "Lower bound of every generated length as a fraction of its upper bound (default 1: the "
                  "seed draws one length per segment)")
      ->check(finite_in(1e-9, 1.0));
  cmd->add_flag("--throughput-gain", o.throughput_gain,
                "Add column 'throughput_gain': the mean virtual-SM throughput gain (eq. (10), Fig. 14(b)) of "
                "the RTGPU allocation over the sets RTGPU accepts (empty where none)");
  cmd->add_option("--search", a->search,
                  "SM allocation search of every method: exact (default) or greedy (docs/rtgpu.md)")
      ->check(CLI::IsMember({"exact", "greedy"}));
  cmd->add_option("--max-analyses", o.analysis_limit,
                  "Stop a set's search after this many task analyses (the sweep exits 1; default 2000000: "
                  "STGM's exact search is exponential in the tasks)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option(
         "--max-seconds", o.analysis_seconds,
         "Stop a set's analysis after this many seconds (the sweep exits 1; default 30; 0 = no limit)")
      ->check(finite_in(0.0, 1e9));
  auto* title = cmd->add_option("--title", a->title, "Title of the --plot chart");
  add_sweep_run_options(cmd, a->run);
  title->needs(cmd->get_option("--plot"));
  cmd->callback([a] { run_sweep(*a); });
}

}  // namespace gpurt::cli

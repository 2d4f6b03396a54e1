// gpurt sweep pbs --figure 4|5a|5b|5c: the PBS seed's §6.2 experiments on the general sweep
// runner (parallel, resumable, sharded) as CSV, optionally drawn as SVG.
#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/pbs_sweep.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {

struct PbsSweepArgs {
  PbsSweepOptions options;
  std::string figure, scenario = "large", title;
  double u_min = 0.2, u_max = 2.0, u_step = 0.2;
  int tasks_min = 2, tasks_max = 10;
  SweepRunArgs run;
  // Options that belong to some figures only, with the figures they apply to: given for
  // another figure they are refused, not ignored.
  std::vector<std::pair<const CLI::Option*, std::vector<PbsFigure>>> figure_only;
};

std::string_view range_text(PbsSlowdown s) {
  switch (s) {
    case PbsSlowdown::small:
      return "[1, 1.4]";
    case PbsSlowdown::large:
      return "[1.7, 1.9]";
    case PbsSlowdown::mixed:
      return "[1.1, 1.9]";
  }
  return "?";
}

SweepPlot plot_for(const PbsSweepOptions& o) {
  SweepPlot p;
  const std::string slow = fmt::format("{} slowdowns {}", to_string(o.slowdown), range_text(o.slowdown));
  p.note = fmt::format("analysis on the §6.1 generator's sets, seed {}", o.seed);
  switch (o.figure) {
    case PbsFigure::fig4:
      p.title = fmt::format("PBS Figure 4: {} tasks, {}, {} sets a point", o.tasks, slow, o.sets);
      p.x = "utilization";
      p.ys = {"gpusched", "edf_serial", "edf_parallel"};
      p.y_label = "schedulable ratio";
      break;
    case PbsFigure::fig5a:
      p.title =
          fmt::format("PBS Figure 5a: GPUSched time, {} tasks, {}, {} sets a point", o.tasks, slow, o.sets);
      p.x = "utilization";
      p.ys = {"min_ms", "p25_ms", "median_ms", "p75_ms", "max_ms"};
      p.y_label = "analysis time (ms)";
      p.log_y = true;
      p.note += "; wall time, this machine";
      break;
    case PbsFigure::fig5b:
      p.title = fmt::format("PBS Figure 5b: GPUSched time at U = 1, {}, {} sets a point", slow, o.sets);
      p.x = "tasks";
      p.ys = {"mean_ms", "median_ms", "p90_ms", "max_ms"};
      p.y_label = "analysis time (ms)";
      p.log_y = true;
      p.note += "; wall time, this machine";
      break;
    case PbsFigure::fig5c:
      p.title = fmt::format("PBS Figure 5c: graph size, {} tasks, U = 1, {}, {} sets", o.tasks, slow, o.sets);
      p.x_label = "vertices created, whole graph explored";
      // merge: every domination merge; no_merge: none at all (the tree of every eligible order,
      // stopped at --max-vertices); identical: only identical vertices merged.
      p.ys = {"vertices_merge", "vertices_identical", "vertices_no_merge"};
      p.y_label = "fraction of task sets";
      p.log_x = true;
      p.cdf = true;
      // A tree stopped at the cap is drawn at the cap, not at its (larger) size: said on the chart.
      p.note += fmt::format("; vertices_no_merge stops at --max-vertices {} (no_merge_complete false)",
                            o.max_vertices);
      break;
  }
  return p;
}

void run_pbs_sweep(const PbsSweepArgs& a) {
  PbsSweepOptions o = a.options;
  const auto figure = parse_pbs_figure(a.figure);
  if (!figure) throw InputError("command line", "--figure", a.figure, "must be 4, 5a, 5b or 5c");
  const auto slowdown = parse_pbs_slowdown(a.scenario);
  if (!slowdown) throw InputError("command line", "--scenario", a.scenario, "must be small, large or mixed");
  o.figure = *figure;
  o.slowdown = *slowdown;
  for (const auto& [option, figures] : a.figure_only) {
    if (option->count() == 0 || std::find(figures.begin(), figures.end(), o.figure) != figures.end())
      continue;
    std::string list;
    for (const PbsFigure f : figures) list += (list.empty() ? "" : ", ") + std::string(to_string(f));
    throw InputError("command line", option->get_name(), option->as<std::string>(),
                     fmt::format("does not apply to --figure {} (only to figure {})", a.figure, list));
  }
  o.utilizations = sweep_range(a.u_min, a.u_max, a.u_step, "--u-min/--u-max/--u-step");
  // A set of n tasks, each of utilisation at most 1, has a utilisation of at most n, and
  // UUniFast-Discard never draws exactly n (every u_i = 1).
  if ((o.figure == PbsFigure::fig4 || o.figure == PbsFigure::fig5a) && o.utilizations.back() >= o.tasks)
    throw InputError(
        "command line", "--u-max", fmt::format("{}", o.utilizations.back()),
        fmt::format("must be below --tasks ({}): a set of {} tasks, each at most 1, reaches {} only with "
                    "every task at 1, which the generator never draws",
                    o.tasks, o.tasks, o.tasks));
  if (a.tasks_min < 1 || a.tasks_max < a.tasks_min) {
    throw InputError("command line", "--tasks-min/--tasks-max",
                     fmt::format("{}/{}", a.tasks_min, a.tasks_max), "need 1 <= min <= max");
  }
  for (int n = a.tasks_min; n <= a.tasks_max; ++n) o.task_counts.push_back(n);
  SweepPlot plot = plot_for(o);
  if (!a.title.empty()) plot.title = a.title;
  run_sweep_command(pbs_sweep_experiment(o), a.run, plot);
}

}  // namespace

void add_sweep_pbs(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand(
      "pbs",
      "PBS §6.2: Figure 4 (schedulability), 5a/5b (GPUSched time), 5c (graph size) (CSV, optional SVG)");
  cmd->footer(
      "Set j of point p is drawn from Rng(seed).fork(p*sets + j): verdicts and vertex counts do not\n"
      "depend on --threads or --shard; *_ms columns are wall times (measure with --threads 1).\n"
      "Examples:\n"
      "  gpurt sweep pbs --figure 4 --scenario small --out fig4a.csv --plot fig4a.svg\n"
      "  gpurt sweep pbs --figure 5b --threads 1 --out fig5b.csv --plot fig5b.svg");
  auto a = std::make_shared<PbsSweepArgs>();
  PbsSweepOptions& o = a->options;
  cmd->add_option("--figure", a->figure, "4, 5a, 5b or 5c")->required();
  cmd->add_option("--scenario", a->scenario,
                  "Slowdowns: small [1,1.4], large [1.7,1.9] (default), mixed [1.1,1.9]");
  cmd->add_option("--sets", o.sets, "Task sets per point (default 50); Figure 5c: number of sets")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--seed", o.seed, "RNG seed (default 1)")->check(seed_value());
  const std::vector<PbsFigure> by_utilisation{PbsFigure::fig4, PbsFigure::fig5a};
  const auto* u_min = cmd->add_option("--u-min", a->u_min, "Figures 4, 5a: first utilisation (default 0.2)")
                          ->check(finite_in(0.001, 10000));
  const auto* u_max = cmd->add_option("--u-max", a->u_max, "Figures 4, 5a: last utilisation (default 2.0)")
                          ->check(finite_in(0.001, 10000));
  const auto* u_step =
      cmd->add_option("--u-step", a->u_step, "Figures 4, 5a: step (default 0.2; at most 10000 points)")
          ->check(finite_positive());
  const auto* tasks = cmd->add_option("--tasks", o.tasks, "Tasks per set, Figures 4, 5a, 5c (default 5)")
                          ->check(CLI::Range(1, 32));
  const auto* tasks_min = cmd->add_option("--tasks-min", a->tasks_min, "Figure 5b: fewest tasks (default 2)");
  const auto* tasks_max = cmd->add_option("--tasks-max", a->tasks_max, "Figure 5b: most tasks (default 10)")
                              ->check(CLI::Range(1, 32));
  a->figure_only = {
      {u_min, by_utilisation},         {u_max, by_utilisation},
      {u_step, by_utilisation},        {tasks, {PbsFigure::fig4, PbsFigure::fig5a, PbsFigure::fig5c}},
      {tasks_min, {PbsFigure::fig5b}}, {tasks_max, {PbsFigure::fig5b}}};
  cmd->add_option(
         "--max-vertices", o.max_vertices,
         "GPUSched vertex cap per analysis (default 5000000; about 2 GB at the cap, times --threads)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}));
  auto* title = cmd->add_option("--title", a->title, "Title of the --plot chart");
  add_sweep_run_options(cmd, a->run);
  title->needs(cmd->get_option("--plot"));
  cmd->callback([a] { run_pbs_sweep(*a); });
}

}  // namespace gpurt::cli

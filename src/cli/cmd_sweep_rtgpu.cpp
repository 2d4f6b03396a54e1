// gpurt sweep rtgpu: acceptance ratio vs utilisation (RTGPU seed §6.2, Figures 8-11) as CSV.
#include <fmt/format.h>

#include <cmath>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/rtgpu_sweep.hpp"

namespace gpurt::cli {

namespace {
struct SweepArgs {
  RtgpuSweepOptions options;
  double u_min = 0.2, u_max = 4.0, u_step = 0.2;
  bool one_copy = false;
  std::string out;
};

void run_sweep(const SweepArgs& a) {
  if (!(a.u_step > 0) || !(a.u_min > 0) || a.u_max < a.u_min) {
    throw InputError("--u-min/--u-max/--u-step", "", fmt::format("{}/{}/{}", a.u_min, a.u_max, a.u_step),
                     "need 0 < u-min <= u-max and u-step > 0");
  }
  RtgpuSweepOptions o = a.options;
  o.generator.two_copies = !a.one_copy;
  const auto steps = static_cast<int>(std::floor((a.u_max - a.u_min) / a.u_step + 1e-9));
  for (int i = 0; i <= steps; ++i) o.utilizations.push_back(std::round((a.u_min + i * a.u_step) * 1e9) / 1e9);
  const std::string csv = to_csv(run_rtgpu_sweep(o), o.methods);
  if (a.out.empty()) {
    fmt::print("{}", csv);
  } else {
    write_file_atomically(a.out, csv);
  }
}
}  // namespace

void add_sweep_rtgpu(CLI::App& app) {
  const auto sweep = app.get_subcommands([](CLI::App* s) { return s->get_name() == "sweep"; });
  CLI::App* parent = sweep.empty() ? app.add_subcommand("sweep", "Experiment sweeps over generated task sets")
                                   : sweep.front();
  parent->require_subcommand(1);
  auto* cmd =
      parent->add_subcommand("rtgpu", "RTGPU §6.2: acceptance ratio vs utilisation, three methods (CSV)");
  cmd->footer(
      "Example (Figure 8 (b), two copies):\n"
      "  gpurt sweep rtgpu --suspension-scale 2 --sets 100 --seed 1 --out fig8b.csv");
  auto a = std::make_shared<SweepArgs>();
  RtgpuSweepOptions& o = a->options;
  cmd->add_option("--sets", o.sets_per_point, "Task sets per point (default 100)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--seed", o.seed, "RNG seed");
  cmd->add_option("--threads", o.threads, "Worker threads (0: all; the output does not depend on it)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--u-min", a->u_min, "First utilisation (default 0.2)");
  cmd->add_option("--u-max", a->u_max, "Last utilisation (default 4.0)");
  cmd->add_option("--u-step", a->u_step, "Step (default 0.2)");
  cmd->add_option("--tasks", o.generator.tasks, "Tasks N (Table 1: 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--subtasks", o.generator.subtasks, "CPU segments M (Table 1: 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--sms", o.generator.physical_sms, "Physical SMs (Table 1: 10)")
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--suspension-scale", o.generator.suspension_scale,
                  "Copy and GPU range scale (Fig. 8: 0.5, 2, 8)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--one-copy", a->one_copy, "One combined copy per GPU segment");
  cmd->add_option("--out", a->out, "Write the CSV here (atomically) instead of stdout");
  cmd->callback([a] { run_sweep(*a); });
}

}  // namespace gpurt::cli

// gpurt sweep cu-masks: one instance of an examiner config on AMD CU partitions of every size,
// SE-packed and SE-distributed (Dissertation §4.2.3, Figure 4.9: isolated MM1024 on 1..60 CUs),
// as CSV. Every number is SIMULATED.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "checks.hpp"
#include "commands.hpp"
#include "fft_common.hpp"
#include "gpurt/bench/results.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/sweep.hpp"
#include "gpurt/exp/sweep_csv.hpp"
#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/sim/simulate.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {
struct SweepCuArgs {
  std::string config, instance, sizes, layouts = "se-packed,se-distributed";
  std::string platform = "radeon-vii", model = "calibrated";
  std::string seed;  ///< --seed as given; "" (left out): the config's
  SweepRunArgs run;
};

std::vector<AmdCuLayout> parse_layouts(const std::string& text) {
  std::vector<AmdCuLayout> out;
  for (const std::string& name : split_commas(text)) {
    if (name == "se-packed") {
      out.push_back(AmdCuLayout::se_packed);
    } else if (name == "se-distributed") {
      out.push_back(AmdCuLayout::se_distributed);
    } else {
      throw InputError("command line", "--layouts", text, "layouts are se-packed and/or se-distributed");
    }
    if (std::count(out.begin(), out.end(), out.back()) > 1)
      throw InputError("command line", "--layouts", text, name + " is named twice");
  }
  return out;
}

void run_sweep_cu(const SweepCuArgs& a) {
  Platform platform = platform_arg(a.platform);
  apply_model_option(platform, a.model);
  if (platform.vendor != Vendor::amd || platform.shader_engines <= 0)
    throw InputError("command line", "--platform", a.platform,
                     "needs an AMD platform with shader engines (CU layouts; the seed: radeon-vii)");
  const std::vector<AmdCuLayout> layouts = parse_layouts(a.layouts);
  const std::vector<int> sizes = parse_int_list(a.sizes.empty() ? fmt::format("1-{}", platform.sms) : a.sizes,
                                                1, platform.sms, "--sizes");
  Scenario loaded = load_scenario(a.config, platform);
  apply_config_seed_option(loaded, a.seed);
  auto base = std::make_shared<const Scenario>(std::move(loaded));
  if (base->instances.empty()) throw InputError(a.config, "benchmarks", "[]", "the config has no instance");
  std::size_t target = 0;
  if (!a.instance.empty()) {
    target = base->instances.size();
    for (std::size_t i = 0; i < base->instances.size(); ++i) {
      if (base->instances[i].label != a.instance) continue;
      if (target != base->instances.size())
        throw InputError("command line", "--instance", a.instance,
                         fmt::format("benchmarks {} and {} of {} both have this label", target, i, a.config));
      target = i;
    }
    if (target == base->instances.size())
      throw InputError("command line", "--instance", a.instance,
                       "no instance of " + a.config + " has this label");
  }
  const AmdCuTopology topo = amd_topology(platform);

  SweepExperiment e;
  e.key_columns = {"backend", "instance", "cus"};
  for (AmdCuLayout l : layouts) {
    const std::string name(to_string(l));
    e.value_columns.insert(e.value_columns.end(),
                           {name + "_iterations", name + "_mean_ms", name + "_max_ms"});
    e.value_kinds.insert(e.value_kinds.end(),
                         {SweepValue::count, SweepValue::nonnegative, SweepValue::nonnegative});
  }
  const std::string label = base->instances[target].label.empty() ? base->instances[target].log_name
                                                                  : base->instances[target].label;
  if (label.find_first_of(",\"\n\r") != std::string::npos) {
    // The label is the sweep's `instance` key column.
    throw InputError(a.config, fmt::format("benchmarks[{}].label", target), label,
                     "is a column of the sweep's CSV here, so it must not hold a comma, quote or newline");
  }
  if (holds_non_finite_number(label)) {
    // A word such as nan or inf in a CSV cell reads as a number no sweep writes: merge and
    // resume would refuse the CSV this run writes.
    throw InputError(a.config, fmt::format("benchmarks[{}].label", target), label,
                     "is a column of the sweep's CSV here, so no word of it may read as a number that is "
                     "not finite (nan, inf)");
  }
  for (int n : sizes) {
    e.keys.push_back({"simulated", label, std::to_string(n)});
    e.items.push_back(static_cast<int>(layouts.size()));
  }
  e.run_item = [base, target, layouts, sizes, topo, platform](std::size_t point, int item) {
    Scenario s = *base;
    s.instances[target].sm_mask = amd_cu_set(topo, layouts[static_cast<std::size_t>(item)], 0, sizes[point]);
    const SimResult r = simulate(s, platform);
    const InstanceSummary row = summarize(r.trace, "")[target];
    return SweepItem{static_cast<double>(row.iterations), static_cast<double>(row.mean_execute.count()),
                     static_cast<double>(row.worst_execute.count())};
  };
  e.finish_point = [](std::size_t, const std::vector<SweepItem>& items) {
    std::vector<std::string> out;
    for (const SweepItem& v : items) {
      out.push_back(fmt::format("{}", static_cast<std::int64_t>(v[0])));
      out.push_back(fmt::format("{:.4f}", v[1] / 1e6));
      out.push_back(fmt::format("{:.4f}", v[2] / 1e6));
    }
    return out;
  };
  SweepPlot plot;
  plot.title = fmt::format("{} on CU partitions of {} (simulated)", label, platform.id);
  plot.x = "cus";
  plot.x_label = "CUs in the partition";
  plot.y_label = "mean response time (ms)";
  plot.note = fmt::format("SIMULATED on {}: {}", platform.id, a.config);
  for (AmdCuLayout l : layouts) plot.ys.push_back(std::string(to_string(l)) + "_mean_ms");
  SweepRunArgs run = a.run;
  run.inputs = {a.config, a.platform};
  run_sweep_command(e, run, plot);
}
}  // namespace

void add_sweep_cu(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand(
      "cu-masks",
      "One instance of a config on AMD CU partitions of every size (Dissertation Fig. 4.9) (CSV)");
  cmd->footer(
      "Runs CONFIG once per partition size and layout with the instance's compute_unit_mask set\n"
      "to that many CUs from CU position 0 (the layouts of docs/amd-and-arbitration.md), and reports\n"
      "the instance's mean and worst response time. Every number is SIMULATED.\n"
      "Example (Dissertation Figure 4.9: isolated MM1024 on 1..60 CUs):\n"
      "  gpurt sweep cu-masks examples/amd/isolated_mm1024.json --out fig4_9.csv --plot fig4_9.svg");
  auto a = std::make_shared<SweepCuArgs>();
  cmd->add_option("config", a->config, "Examiner config (JSON)")->required();
  cmd->add_option("--instance", a->instance, "Label of the instance to partition (default: the first)");
  cmd->add_option("--sizes", a->sizes, "Partition sizes in CUs, e.g. 1-60 or 15,16,30 (default: 1..all)");
  cmd->add_option("--layouts", a->layouts, "se-packed and/or se-distributed (default both)");
  cmd->add_option("--platform", a->platform, "AMD platform preset or file (default radeon-vii)");
  add_model_option(cmd, a->model);
  add_config_seed_option(cmd, a->seed);
  add_sweep_run_options(cmd, a->run);
  cmd->callback([a] { run_sweep_cu(*a); });
}

}  // namespace gpurt::cli

// gpurt generate rtgpu: one RTGPU Table 1 task set (RTGPU seed §6.1) as a gpurt/rtgpu@1 file.
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"

namespace gpurt::cli {

namespace {
struct Table1Args {
  RtgpuTable1Options options;
  std::uint64_t seed = 1;
  bool one_copy = false;
};
}  // namespace

void add_generate_rtgpu(CLI::App& generate) {
  auto* cmd =
      generate.add_subcommand("rtgpu", "RTGPU Table 1 task set (RTGPU seed §6.1) as gpurt/rtgpu@1 JSON");
  cmd->footer(
      "Example:\n  gpurt generate rtgpu --utilization 1.5 --seed 7 > set.json\n"
      "  gpurt analyze rtgpu set.json");
  auto a = std::make_shared<Table1Args>();
  RtgpuTable1Options& o = a->options;
  cmd->add_option("--utilization", o.utilization, "Total utilisation U (split by UUniFast; at most 10000)")
      ->required()
      ->check(finite_positive(10000));
  cmd->add_option("--seed", a->seed, "RNG seed (same seed, same file on any machine)")->check(seed_value());
  cmd->add_option("--tasks", o.tasks, "Tasks N (Table 1: 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--subtasks", o.subtasks, "CPU segments M per task (Table 1: 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--sms", o.physical_sms, "Physical SMs GN (Table 1: 10)")->check(CLI::Range(1, 65536));
  cmd->add_option("--suspension-scale", o.suspension_scale,
                  "Scale the copy and GPU ranges (Fig. 8: 0.5, 2, 8 for 2:1, 1:2, 1:8)")
      ->check(finite_positive(1e6));
  cmd->add_option("--lower-fraction", o.lower_fraction,
                  "Lower bounds as a fraction of the drawn lengths (default 1)")
      ->check(finite_in(1e-9, 1.0));
  cmd->add_flag("--one-copy", a->one_copy, "One combined copy per GPU segment (§6.1's one-copy model)");
  cmd->callback([a] {
    RtgpuTable1Options options = a->options;
    options.two_copies = !a->one_copy;
    Rng rng(a->seed);
    const std::string text = to_json(generate_rtgpu_table1(rng, options)).dump(2) + "\n";
    // 1000 tasks of 1000 segments made a 333 MB file that every command then refused to read.
    if (static_cast<std::int64_t>(text.size()) > max_input_bytes())
      throw InputError("command line", "--tasks", std::to_string(options.tasks),
                       fmt::format("with --subtasks {} the set is {} bytes, above the {} bytes gpurt reads "
                                   "(GPURT_MAX_INPUT_BYTES raises the limit); nothing was written",
                                   options.subtasks, text.size(), max_input_bytes()));
    if (const std::uint64_t tree = json_tree_bytes(text);
        tree > static_cast<std::uint64_t>(max_json_tree_bytes()))
      throw InputError(
          "command line", "--tasks", std::to_string(options.tasks),
          fmt::format("with --subtasks {} the set takes about {} bytes as a JSON tree, above the {} "
                      "gpurt reads (GPURT_MAX_JSON_TREE_BYTES raises the limit); nothing was written",
                      options.subtasks, tree, max_json_tree_bytes()));
    fmt::print("{}", text);
  });
}

}  // namespace gpurt::cli

// gpurt sweep merge A.csv B.csv ... --out X.csv: joins the CSVs of a sharded sweep (--shard I/N)
// into the whole sweep's CSV, checking headers agree and every point appears exactly once.
#include "commands.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/sweep.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

void add_sweep_merge(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand("merge", "Join the CSVs of a sharded sweep (--shard I/N)");
  cmd->footer(
      "Errors (exit 2, nothing written): headers that differ, a point in two files, points missing.\n"
      "Example:\n"
      "  gpurt sweep pbs --figure 4 --shard 1/2 --out s1.csv   # on one machine\n"
      "  gpurt sweep pbs --figure 4 --shard 2/2 --out s2.csv   # on another\n"
      "  gpurt sweep merge s1.csv s2.csv --out fig4.csv");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("CSV", *files, "Shard outputs")->required();
  cmd->add_option("--out", *out, "Merged CSV (default: stdout)");
  cmd->callback([files, out] {
    if (!out->empty()) {
      check_output_file(*out, "--out");
      check_output_not_input(*out, *files, "--out");  // a shard is read, not replaced
    }
    std::vector<SweepCsvFile> inputs;
    for (const std::string& f : *files) inputs.push_back({f, read_text_file(f)});
    const std::string csv = merge_sweep_csv(inputs);
    if (out->empty()) {
      std::fwrite(csv.data(), 1, csv.size(), stdout);
    } else {
      write_file_atomically(*out, csv);
    }
  });
}

}  // namespace gpurt::cli

// gpurt sweep merge A.csv B.csv ... --out X.csv: joins the CSVs of a sharded sweep (--shard I/N)
// into the whole sweep's CSV, checking headers agree and every point appears exactly once.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/exp/sweep.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

void add_sweep_merge(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand("merge", "Join the CSVs of a sharded sweep (--shard I/N)");
  cmd->footer(
      "Errors (exit 2, nothing written): headers that differ, a point in two files, points missing,\n"
      "shards' settings files (CSV.settings.json) that differ, or one shard without one.\n"
      "Example:\n"
      "  gpurt sweep pbs --figure 4 --shard 1/2 --out s1.csv   # on one machine\n"
      "  gpurt sweep pbs --figure 4 --shard 2/2 --out s2.csv   # on another\n"
      "  gpurt sweep merge s1.csv s2.csv --out fig4.csv");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("CSV", *files, "Shard outputs")->required();
  cmd->add_option("--out", *out, "Merged CSV (default: stdout)");
  cmd->callback([files, out] {
    // Every file merge reads: the shards and the settings files beside them.
    std::vector<std::string> read = *files;
    for (const std::string& f : *files) read.push_back(sweep_settings_path(f));
    const std::string settings_out = out->empty() ? "" : sweep_settings_path(*out);
    if (!out->empty()) {
      check_output_file(*out, "--out");
      check_output_file(settings_out, "--out (its settings file)");
      check_output_not_input(*out, read, "--out");  // a shard is read, not replaced
      check_output_not_input(settings_out, read, "--out (its settings file)");
    }
    std::vector<SweepCsvFile> inputs;
    for (const std::string& f : *files) inputs.push_back({f, read_text_file(f)});
    const std::string csv = merge_sweep_csv(inputs);
    // The shards' settings files (docs/sweeps.md "Settings"): every shard has one or none does,
    // and they agree; the merged CSV gets theirs.
    std::optional<Json> settings;
    std::string with, without;
    for (const std::string& f : *files) {
      const std::string path = sweep_settings_path(f);
      std::error_code ec;
      if (!std::filesystem::exists(path, ec) && !std::filesystem::is_symlink(path, ec)) {
        if (without.empty()) without = f;
        continue;
      }
      Json s = load_sweep_settings(path);
      if (settings) {
        check_same_sweep_settings(
            s, path, *settings, sweep_settings_path(with),
            fmt::format(
                "the shards of one sweep must run with the same settings: rerun the shard of {} with {}'s", f,
                with));
      } else {
        settings = std::move(s);
        with = f;
      }
    }
    if (settings && !without.empty())
      throw InputError(
          without,
          fmt::format("has no settings file ({}) while {} has one: the shards of one sweep are run by "
                      "one command line, so their settings cannot be compared",
                      sweep_settings_path(without), sweep_settings_path(with)));
    if (!settings)
      fmt::print(stderr,
                 "gpurt: note: no shard has a settings file (CSV.settings.json): their settings are not "
                 "checked\n");
    if (out->empty()) {
      std::fwrite(csv.data(), 1, csv.size(), stdout);
    } else if (settings) {
      write_files_atomically({{*out, csv}, {settings_out, settings->dump(1) + "\n"}});
    } else {
      write_file_atomically(*out, csv);
      // A settings file left beside --out by an earlier run describes other rows.
      std::error_code ec;
      std::filesystem::remove(settings_out, ec);
    }
  });
}

}  // namespace gpurt::cli

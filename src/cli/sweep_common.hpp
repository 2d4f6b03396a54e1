// What every `gpurt sweep EXPERIMENT` shares: the runner's options (--threads, --shard, --out,
// --progress/--quiet), printing the CSV, and --plot (a chart of the finished sweep's CSV).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpurt/exp/sweep.hpp"

namespace gpurt::cli {

/// The `sweep` parent command (created on first use, shared by every sweep file).
CLI::App* sweep_command(CLI::App& app);

struct SweepRunArgs {
  int threads = 0;
  std::string shard;  ///< "I/N"
  std::string out, plot;
  bool progress = false, quiet = false;
  std::int64_t max_items = 20'000'000;  ///< --max-items: work items (sets) to compute, at most
  /// The command's other output files (option, path), checked with --out and --plot before the
  /// run: each a file in a writable folder, not a device or FIFO, and no two the same file.
  std::vector<std::pair<std::string, std::string>> more_outputs;
  /// The files the command reads (config, platform file): no output may be one of them.
  std::vector<std::string> inputs;
  /// The sweep's subcommand (set by add_sweep_run_options): its options, as parsed, are the
  /// settings recorded beside --out (OUT.settings.json) and checked when a run resumes.
  CLI::App* command = nullptr;
};

/// The file beside a sweep's CSV that records the settings its rows came from.
std::string sweep_settings_path(const std::string& csv);

/// Reads a settings file (gpurt/sweep-settings@1); InputError naming the file and path when it
/// is not one.
nlohmann::ordered_json load_sweep_settings(const std::string& path);

/// Throws InputError naming `recorded_file` and the first setting (an option, or a digest of a
/// file the sweep reads) in which `recorded` and `now` differ, or a file read that is not a
/// regular file (its content cannot be compared); `now_is` names `now` in the message ("this
/// run", a shard's settings file) and `fix` ends it (what the user can do).
void check_same_sweep_settings(const nlohmann::ordered_json& recorded, const std::string& recorded_file,
                               const nlohmann::ordered_json& now, const std::string& now_is,
                               const std::string& fix);

/// Adds --threads, --shard, --out, --plot, --progress, --quiet, --max-items to `cmd`.
void add_sweep_run_options(CLI::App* cmd, SweepRunArgs& args);

/// What --plot draws: columns of the sweep's CSV as lines against `x`, or (cdf) the empirical
/// CDF of each y column's values.
struct SweepPlot {
  std::string title, x, x_label, y_label, note;
  std::vector<std::string> ys;
  bool log_x = false, log_y = false, cdf = false;
  bool lines = true;  ///< false: markers only (rows that are scenarios, not a curve)
};

/// Runs the sweep with the user's options: the CSV goes to --out (resumable; with its settings
/// file, which a resume must match: InputError naming the setting otherwise) or stdout, the
/// chart to --plot, and each of `more_plots` (path, chart; an empty path draws nothing) to its
/// path; every chart is drawn before any is written, so a row that cannot be drawn leaves none.
/// Returns the sweep's CSV (this shard's rows). Throws InputError for a bad --shard, --plot with
/// a shard, or rows a chart cannot draw (naming --out).
std::string run_sweep_command(const SweepExperiment& experiment, const SweepRunArgs& args,
                              const SweepPlot& plot,
                              const std::vector<std::pair<std::string, SweepPlot>>& more_plots = {});

/// The comma-separated fields of `text` ("a,b" -> {"a", "b"}; "" -> {""}): list options such as
/// --tables and --layouts, each field checked by the caller.
std::vector<std::string> split_commas(const std::string& text);

/// The most points sweep_range gives.
inline constexpr int kMaxSweepPoints = 10'000;

/// x values lo, lo + step, ..., hi (rounded to 1e-9); InputError naming the options when a value
/// is not finite, the range is empty or it has more than kMaxSweepPoints points.
std::vector<double> sweep_range(double lo, double hi, double step, const std::string& names);

}  // namespace gpurt::cli

#include "sweep_common.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/trace/chart.hpp"

namespace gpurt::cli {

CLI::App* sweep_command(CLI::App& app) {
  const auto found = app.get_subcommands([](CLI::App* s) { return s->get_name() == "sweep"; });
  if (!found.empty()) return found.front();
  CLI::App* sweep = app.add_subcommand("sweep", "Experiment sweeps over generated task sets (CSV, SVG)");
  sweep->require_subcommand(1);
  return sweep;
}

void add_sweep_run_options(CLI::App* cmd, SweepRunArgs& a) {
  a.command = cmd;
  cmd->add_option("--threads", a.threads, "Worker threads (0: all cores; the output does not depend on it)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--shard", a.shard,
                  "Compute only shard I of N (points p with p mod N = I-1); join with 'sweep merge'");
  cmd->add_option(
      "--out", a.out,
      "CSV file; written line by line as points finish, rerun to resume, rewritten in order at the end; "
      "the settings its rows came from go to CSV.settings.json, which a resume must match");
  cmd->add_option("--plot", a.plot, "Also draw the finished sweep as an SVG chart here");
  auto* progress =
      cmd->add_flag("--progress", a.progress, "Progress on stderr even when it is not a terminal");
  cmd->add_flag("--quiet", a.quiet, "No progress on stderr")->excludes(progress);
  cmd->add_option("--max-items", a.max_items,
                  "Refuse a run with more work items (task sets of all points to compute) than this "
                  "(default 20000000: the runner keeps a slot per item, about 40 bytes)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
}

namespace {

std::pair<int, int> parse_shard(const std::string& text) {
  int i = 0, n = 0;
  const auto slash = text.find('/');
  const auto ok = [](std::string_view s, int& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  if (slash == std::string::npos || !ok(std::string_view(text).substr(0, slash), i) ||
      !ok(std::string_view(text).substr(slash + 1), n) || n < 1 || i < 1 || i > n) {
    throw InputError("command line", "--shard", text, "must be I/N with 1 <= I <= N, e.g. 2/4");
  }
  return {i, n};
}

// `file` names the rows in errors: the --out file (a resumed one may hold cells an earlier run or
// a person wrote) or, without one, the sweep's output.
std::string plot_svg(const std::string& csv, const SweepPlot& p, const std::string& file) {
  const CsvTable table = parse_csv(csv, file);
  Chart chart;
  chart.title = p.title;
  chart.x_label = p.x_label.empty() ? p.x : p.x_label;
  chart.y_label = p.y_label;
  chart.log_x = p.log_x;
  chart.log_y = p.log_y;
  chart.note = p.note;
  chart.lines = p.lines;
  if (p.cdf) {
    for (const std::string& y : p.ys) {
      const std::size_t c = table.column(y, file);
      std::vector<double> samples;
      for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const std::string& cell = table.rows[r][c];
        if (cell.empty()) continue;
        // A resumed file's cell may hold a word (resume takes true/false anywhere): bad input.
        char* end = nullptr;
        const double v = std::strtod(cell.c_str(), &end);
        if (end != cell.c_str() + cell.size() || !std::isfinite(v))
          throw InputError(file, fmt::format("row {}.{}", r + 1, y), cell, "not a number to plot");
        samples.push_back(v);
      }
      chart.series.push_back(cdf_series(y, std::move(samples)));
    }
  } else {
    chart.series = series_from_csv(table, file, p.x, p.ys);
  }
  try {
    return chart_svg(chart);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(file, e.what());  // e.g. no drawable point: a property of the rows
  }
}

constexpr std::string_view kSettingsFormat = "gpurt/sweep-settings@1";

// Recorded for a file the sweep reads that is not a regular file (a pipe): what it held cannot be
// digested, so rows made from it are never resumed.
constexpr std::string_view kUndigested = "not a regular file: cannot be checked";

// A file's content in 16 hex digits (FNV-1a, 64 bits): enough to tell an edited platform or
// config file from the one a CSV's rows came from; not a defence against a forger.
std::string content_digest(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

// Text a JSON string can hold: valid UTF-8 as it is, anything else as its bytes in hex (two
// different byte strings never give the same text).
std::string json_text(const std::string& text) {
  try {
    (void)Json(text).dump();
    if (!text.starts_with("bytes:")) return text;
  } catch (const Json::type_error&) {
  }
  std::string hex = "bytes:";
  for (const char c : text) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return hex;
}

// The options that do not decide a row's values: where the output goes, how fast it comes, the
// chart's title, and the limits that only decide whether a run finishes (raising one after a
// failure must resume the rows the failed run kept). --max-vertices is not one of them: it
// decides sweep pbs's gpusched_unknown.
const std::set<std::string>& options_outside_settings() {
  static const std::set<std::string> names = {"--threads",  "--shard",        "--out",        "--plot",
                                              "--progress", "--quiet",        "--max-items",  "--title",
                                              "--max-jobs", "--max-analyses", "--max-seconds"};
  return names;
}

// The settings that decide the rows' values: every other option of the sweep's command as this
// run has it, and a digest of each file it reads.
Json sweep_settings(const SweepRunArgs& a) {
  std::set<std::string> skip = options_outside_settings();
  for (const auto& [option, path] : a.more_outputs) skip.insert(option);
  Json settings = Json::object();
  for (CLI::Option* opt : a.command->get_options()) {
    const std::string name = !opt->get_lnames().empty()   ? "--" + opt->get_lnames().front()
                             : !opt->get_snames().empty() ? "-" + opt->get_snames().front()
                                                          : opt->get_name(true);
    if (name.empty() || name.starts_with("--help") || skip.contains(name)) continue;
    std::string value;
    if (opt->get_expected_max() == 0) {
      value = opt->count() > 0 && opt->as<bool>() ? "true" : "false";  // a flag: the value it sets
    } else if (opt->count() > 0) {
      // What was given, exactly (a default's text has 6 digits: 123456.4 and 123456.1 alike).
      for (const std::string& r : opt->results()) value += (value.empty() ? "" : " ") + r;
    } else {
      // Left out: the bound variable's default, as CLI11 prints it (the same text every run).
      const std::string unset = "\x01";
      opt->default_str(unset)->capture_default_str();
      value = opt->get_default_str() == unset ? "" : opt->get_default_str();
    }
    settings[json_text(name)] = json_text(value);
  }
  Json inputs = Json::object();
  for (const std::string& path : a.inputs) {
    std::error_code ec;
    // A platform preset's id is no file, even where a file of that name lies in the folder.
    if (path.empty() || find_platform_preset(path) != nullptr) continue;
    // "-" is standard input (read_text_file), which the run has read: a second read gets nothing.
    inputs[json_text(path)] = path != "-" && std::filesystem::is_regular_file(path, ec)
                                  ? content_digest(read_text_file(path))
                                  : std::string(kUndigested);
  }
  Json doc = Json::object();
  doc["format"] = kSettingsFormat;
  doc["sweep"] = a.command->get_name();
  doc["settings"] = std::move(settings);
  doc["inputs"] = std::move(inputs);
  return doc;
}

// Whether `csv` holds a row beyond its header (a run killed before its first row leaves at most
// the header, whose settings file a new run may replace).
bool has_rows(const std::string& csv) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(csv, ec)) return std::filesystem::exists(csv, ec);
  std::ifstream in(csv, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  // A complete row: a second newline (a cut first row is dropped by the runner, like no row).
  const std::size_t first = head.find('\n');
  return first != std::string::npos && head.find('\n', first + 1) != std::string::npos;
}

}  // namespace

std::string sweep_settings_path(const std::string& csv) { return csv + ".settings.json"; }

Json load_sweep_settings(const std::string& path) {
  // A settings file is a few hundred bytes of a regular file; a device or a large file is not one.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path, "is not a regular file (a settings file)");
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec);
      !ec && size > (std::uintmax_t{1} << 20))
    throw InputError(path, fmt::format("is {} bytes, more than a sweep's settings file could be", size));
  const Json doc = load_json_file(path);
  const JsonNode root(doc, path);
  root.expect_object({"format", "sweep", "settings", "inputs"});
  if (root.at("format").as_string() != kSettingsFormat)
    root.at("format").fail(fmt::format("must be \"{}\"", kSettingsFormat));
  (void)root.at("sweep").as_string();
  for (const char* section : {"settings", "inputs"}) {
    const JsonNode s = root.at(section);
    if (!s.is_object()) s.fail("must be an object of strings");
    for (const auto& [key, value] : s.json().items()) (void)s.at(key).as_string();
  }
  return doc;
}

void check_same_sweep_settings(const Json& recorded, const std::string& recorded_file, const Json& now,
                               const std::string& now_is, const std::string& fix) {
  const auto text = [](const Json& values, const std::string& key) {
    if (!values.contains(key)) return std::string("(not recorded)");
    const std::string value = values.at(key).get<std::string>();
    return value.empty() ? std::string("\"\"") : printable(value);
  };
  if (recorded.at("sweep") != now.at("sweep"))
    throw InputError(
        recorded_file, "sweep", printable(recorded.at("sweep").get<std::string>()),
        fmt::format("{} is a '{}' sweep; {}", now_is, printable(now.at("sweep").get<std::string>()), fix));
  for (const char* section : {"settings", "inputs"}) {
    const Json& old_values = recorded.at(section);
    const Json& new_values = now.at(section);
    const bool files = std::string_view(section) == "inputs";
    std::set<std::string> keys;
    for (const auto& [key, value] : old_values.items()) keys.insert(key);
    for (const auto& [key, value] : new_values.items()) keys.insert(key);
    for (const std::string& key : keys) {
      // Compared as recorded; the text below only names them.
      const bool same =
          old_values.contains(key) && new_values.contains(key) && old_values.at(key) == new_values.at(key);
      const bool unknowable =
          files && ((old_values.contains(key) && old_values.at(key) == std::string(kUndigested)) ||
                    (new_values.contains(key) && new_values.at(key) == std::string(kUndigested)));
      if (same && !unknowable) continue;
      const std::string was = text(old_values, key), is = text(new_values, key);
      if (unknowable)
        throw InputError(
            recorded_file, fmt::format("{}.{}", section, printable(key)), was,
            fmt::format("a file that is not a regular file (a pipe, standard input) cannot be compared: "
                        "whether {} read what the rows came from is unknown, so rows made from one are never "
                        "resumed or merged: remove the CSV and its settings file (or the shards') and run "
                        "again with a regular file",
                        now_is));
      const bool changed = files && new_values.contains(key) && old_values.contains(key);
      throw InputError(recorded_file, fmt::format("{}.{}", section, printable(key)), was,
                       fmt::format("{} has {}{}; {}", now_is, is, changed ? " (the file changed)" : "", fix));
    }
  }
}

std::string run_sweep_command(const SweepExperiment& experiment, const SweepRunArgs& a, const SweepPlot& plot,
                              const std::vector<std::pair<std::string, SweepPlot>>& more_plots) {
  SweepRunOptions o;
  o.threads = a.threads;
  o.max_items = a.max_items;
  if (!a.shard.empty()) std::tie(o.shard_index, o.shard_count) = parse_shard(a.shard);
  // Every output before any work: an existing device or FIFO would be read back as a partial
  // sweep (without end) or replaced by a file, and two outputs at one path overwrite each other.
  // Every output but the CSV draws the whole sweep, which a shard does not hold.
  std::vector<std::pair<std::string, std::string>> outputs = {{"--out", a.out}, {"--plot", a.plot}};
  outputs.insert(outputs.end(), a.more_outputs.begin(), a.more_outputs.end());
  std::erase_if(outputs, [](const auto& output) { return output.second.empty(); });
  for (const auto& [option, path] : outputs)
    if (option != "--out" && o.shard_count > 1)
      throw InputError(
          "command line", option, path,
          "a shard holds part of the sweep: merge the shards ('gpurt sweep merge'), then 'gpurt chart'");
  // The CSV's settings file: an output of its own, checked as the others.
  const std::string settings_file = a.out.empty() || a.command == nullptr ? "" : sweep_settings_path(a.out);
  if (!settings_file.empty()) outputs.emplace_back("--out (its settings file)", settings_file);
  for (const auto& [option, path] : outputs) check_output_file(path, option);
  check_distinct_outputs(outputs);
  // A picture or the CSV over the config or platform file the sweep reads.
  for (const auto& [option, path] : outputs) check_output_not_input(path, a.inputs, option);
  o.out = a.out;
  if (!a.quiet && (a.progress || ::isatty(STDERR_FILENO) != 0)) o.progress = stderr;
  // Rows to resume from must come from this run's settings (docs/sweeps.md "Settings"): checked
  // before any work. A CSV without rows gets this run's settings file once the runner has checked
  // its own options, before it writes the CSV, so a killed run's rows have one.
  bool settings_checked = false, settings_written = false;
  if (!settings_file.empty()) {
    const Json now = sweep_settings(a);
    std::error_code ec;
    if (!has_rows(a.out)) {
      o.before_writing = [&settings_file, &settings_written, text = now.dump(1) + "\n"] {
        write_file_atomically(settings_file, text);
        settings_written = true;
      };
    } else if (std::filesystem::exists(settings_file, ec) || std::filesystem::is_symlink(settings_file, ec)) {
      check_same_sweep_settings(
          load_sweep_settings(settings_file), settings_file, now, "this run",
          fmt::format(
              "the rows of {} came from the settings in this file: run with them, or remove both files to "
              "recompute",
              a.out));
      settings_checked = true;
    }
  }
  const SweepOutcome outcome = [&] {
    try {
      return run_sweep(experiment, o);
    } catch (...) {
      // A run that left no CSV (it removes one it created and finished no row of) leaves no
      // settings file either.
      std::error_code ec;
      if (settings_written && !std::filesystem::exists(a.out, ec)) std::filesystem::remove(settings_file, ec);
      throw;
    }
  }();
  // Said even with --quiet: rows an earlier run wrote are kept. A CSV from before settings files
  // (or whose file was removed) has rows whose options cannot be checked.
  if (outcome.resumed > 0)
    fmt::print(stderr, "gpurt: note: {} of {} points kept from {} ({})\n", outcome.resumed,
               outcome.points.size(), a.out,
               settings_checked
                   ? fmt::format("computed with this run's settings, {}", settings_file)
                   : fmt::format("an earlier run's rows, not checked: {} is missing; remove the CSV to "
                                 "recompute",
                                 sweep_settings_path(a.out)));
  if (a.out.empty()) fmt::print("{}", outcome.csv);
  // Every picture drawn before any is written: a cell that cannot be drawn leaves none.
  const std::string rows = a.out.empty() ? "the sweep's rows" : a.out;
  std::vector<OutputFile> pictures;
  if (!a.plot.empty()) pictures.emplace_back(a.plot, plot_svg(outcome.csv, plot, rows));
  for (const auto& [path, more] : more_plots)
    if (!path.empty()) pictures.emplace_back(path, plot_svg(outcome.csv, more, rows));
  if (!pictures.empty()) write_files_atomically(pictures);
  return outcome.csv;
}

std::vector<double> sweep_range(double lo, double hi, double step, const std::string& names) {
  const std::string value = fmt::format("{}/{}/{}", lo, hi, step);
  if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(step)) {
    throw InputError("command line", names, value, "must be finite numbers");
  }
  if (!(step > 0) || !(lo > 0) || hi < lo) {
    throw InputError("command line", names, value, "need 0 < min <= max and step > 0");
  }
  // Points are rounded to 10^-9 (so 0.1 + 2·0.1 is 0.3): a step near that would give equal or
  // out-of-range points.
  if (step < 1e-6) throw InputError("command line", names, value, "the step must be at least 1e-6");
  const double count = std::floor((hi - lo) / step + 1e-9) + 1;
  if (!(count <= kMaxSweepPoints)) {
    throw InputError(
        "command line", names, value,
        fmt::format("gives {:.0f} points, more than {} (raise the step)", count, kMaxSweepPoints));
  }
  std::vector<double> out;
  const auto steps = static_cast<int>(count) - 1;
  for (int i = 0; i <= steps; ++i) out.push_back(std::min(hi, std::round((lo + i * step) * 1e9) / 1e9));
  return out;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

}  // namespace gpurt::cli

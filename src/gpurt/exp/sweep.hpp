// The general sweep runner (issue 4, "Experiments"): an experiment is a list of points (one CSV
// row each), every point a number of independent work items (task sets). The runner computes
// the items in parallel (oneTBB), reduces each point once its items are done, and writes its row.
//
// - Deterministic: an item is a pure function of (point, item) — experiments derive each item's
//   generator from the seed and these indices (Rng::fork), never from a shared stream — and the
//   final CSV lists the points in point order, so the bytes do not depend on the thread count.
// - Resumable: with an output file, each finished point is appended as one complete line and
//   flushed; a rerun reads the file, keeps the complete rows (a truncated last line, from a
//   killed run, is dropped) and computes only the missing points. At the end the file is
//   rewritten atomically in point order.
// - Sharded: `shard` I of N computes the points p with p mod N = I − 1 (round robin, so the
//   expensive high-utilisation points spread over the shards); merge_sweep_csv joins the shard
//   files and checks that every point appears exactly once.
//
// CSV layout: "point,points,<key columns>,<value columns>"; `point` is the 0-based index in the
// whole sweep and `points` the sweep's size, so a merge can tell a missing point from a short
// sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpurt {

/// What one work item reports: experiment-defined numbers (verdicts, times, vertex counts).
using SweepItem = std::vector<double>;

/// What a value column holds, which a resumed row must too (a row this sweep could not have
/// written is refused, not presented as the sweep's result). Every kind allows an empty cell.
enum class SweepValue {
  number,       ///< any finite number (or several, space-separated), true or false: the format only
  ratio,        ///< one number in [0, 1]
  count,        ///< one whole number >= 0
  nonnegative,  ///< one number >= 0
  flag,         ///< true or false
};

/// The problem with `field` as a value of `kind` ("" when it is one).
std::string sweep_value_problem(std::string_view field, SweepValue kind);

struct SweepExperiment {
  std::vector<std::string> key_columns;    ///< identify a point, e.g. {"utilization"}
  std::vector<std::string> value_columns;  ///< the results, e.g. {"sets", "rtgpu", ...}
  /// Per point, the key fields (formatted, no commas or quotes), as many as key_columns.
  std::vector<std::vector<std::string>> keys;
  /// Per point, how many work items it has (>= 1).
  std::vector<int> items;
  /// Computes item `item` of point `point`. Called concurrently from several threads: must be
  /// a pure function of its arguments (and of state it only reads).
  std::function<SweepItem(std::size_t point, int item)> run_item;
  /// Reduces a point's items (in item order) to its value fields, as many as value_columns.
  /// Called once per computed point, possibly concurrently for different points.
  std::function<std::vector<std::string>(std::size_t point, const std::vector<SweepItem>& items)>
      finish_point;
  /// What each value column holds, checked on every resumed row (empty: SweepValue::number for all).
  std::vector<SweepValue> value_kinds;
  /// Optional, on a resumed row whose cells have their kinds: a rule across its cells (a set
  /// count the options fix, min <= mean <= max). Returns (value column index, problem), or nothing.
  std::function<std::optional<std::pair<std::size_t, std::string>>(std::size_t point,
                                                                   const std::vector<std::string>& values)>
      check_values;
};

struct SweepRunOptions {
  int threads = 0;                ///< worker threads; 0: oneTBB's default (all cores)
  int shard_index = 1;            ///< I of --shard I/N, 1-based
  int shard_count = 1;            ///< N of --shard I/N
  std::string out{};              ///< CSV file to write and resume from; empty: rows are only returned
  std::FILE* progress = nullptr;  ///< one line per finished point, when set (e.g. stderr)
  /// The most work items (over the points to compute) a run takes: the runner keeps a slot per
  /// item (about 40 bytes) from the start. More is InputError naming --max-items, before any work.
  std::int64_t max_items = 20'000'000;
  /// Called once every check has passed (the options, the file to resume from), just before the
  /// run first writes `out`; not called without `out`. The CLI writes the CSV's settings file here.
  std::function<void()> before_writing{};
};

struct SweepOutcome {
  std::string csv;                             ///< header + this shard's rows in point order
  std::vector<std::size_t> points;             ///< this shard's point indices, in order
  std::vector<std::vector<std::string>> rows;  ///< their full rows (point, points, keys, values)
  std::size_t computed = 0, resumed = 0;       ///< points computed now / taken from the file
};

/// The CSV header for `experiment`: "point,points,<keys>,<values>".
std::string sweep_header(const SweepExperiment& experiment);

/// Runs (this shard of) the sweep. Throws InputError when `options.out` exists but is not a
/// partial output of this sweep (other header, a row for another point or shard, a duplicate,
/// a key that differs); gpurt::Error for a malformed experiment or options.
SweepOutcome run_sweep(const SweepExperiment& experiment, const SweepRunOptions& options);

/// One input of merge_sweep_csv: its name (for errors) and text.
struct SweepCsvFile {
  std::string name, text;
};

/// Joins shard outputs into the CSV of the whole sweep, in point order. Throws InputError
/// naming the file when the headers differ, a point appears twice, a row's `points` differs,
/// a row is malformed, or any point in 0..points−1 is missing (listing the first missing ones).
/// A truncated last line (no final newline) counts as absent.
std::string merge_sweep_csv(const std::vector<SweepCsvFile>& files);

}  // namespace gpurt

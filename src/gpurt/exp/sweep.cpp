#include "gpurt/exp/sweep.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/sweep_csv.hpp"

namespace gpurt {

std::string sweep_header(const SweepExperiment& e) {
  std::vector<std::string> columns{"point", "points"};
  columns.insert(columns.end(), e.key_columns.begin(), e.key_columns.end());
  columns.insert(columns.end(), e.value_columns.begin(), e.value_columns.end());
  return join_csv_fields(columns);
}

namespace {

void check_field(const std::string& field, const char* what) {
  if (field.find_first_of(",\"\n\r") != std::string::npos) {
    throw Error(fmt::format("sweep: {} '{}' holds a comma, quote or newline", what, field));
  }
}

void check_experiment(const SweepExperiment& e, const SweepRunOptions& o) {
  if (e.keys.size() != e.items.size()) throw Error("sweep: keys and items differ in length");
  if (!e.run_item || !e.finish_point) throw Error("sweep: run_item and finish_point are required");
  for (const auto& c : e.key_columns) check_field(c, "column");
  for (const auto& c : e.value_columns) check_field(c, "column");
  for (std::size_t p = 0; p < e.keys.size(); ++p) {
    if (e.keys[p].size() != e.key_columns.size())
      throw Error(fmt::format("sweep: point {} has a wrong key", p));
    for (const auto& k : e.keys[p]) check_field(k, "key");
    if (e.items[p] < 1) throw Error(fmt::format("sweep: point {} has no work item", p));
  }
  if (o.shard_count < 1 || o.shard_index < 1 || o.shard_index > o.shard_count) {
    throw InputError("command line", "--shard", fmt::format("{}/{}", o.shard_index, o.shard_count),
                     "need 1 <= I <= N");
  }
  if (o.threads < 0) throw InputError("command line", "--threads", std::to_string(o.threads), "must be >= 0");
}

std::vector<std::string> full_row(const SweepExperiment& e, std::size_t p, std::vector<std::string> values) {
  if (values.size() != e.value_columns.size()) {
    throw Error(fmt::format("sweep: point {} gave {} values for {} columns", p, values.size(),
                            e.value_columns.size()));
  }
  std::vector<std::string> row{std::to_string(p), std::to_string(e.keys.size())};
  row.insert(row.end(), e.keys[p].begin(), e.keys[p].end());
  for (auto& v : values) {
    check_field(v, "value");
    row.push_back(std::move(v));
  }
  return row;
}

/// Rows of a partial output of this sweep (this shard), by point. Throws InputError when the
/// file belongs to something else.
std::map<std::size_t, std::vector<std::string>> read_partial(const SweepExperiment& e,
                                                             const SweepRunOptions& o,
                                                             const std::string& header) {
  std::map<std::size_t, std::vector<std::string>> rows;
  if (o.out.empty() || !std::filesystem::exists(o.out)) return rows;
  // Only a regular file of a plausible size is resumed from: a device or FIFO has no end, and a
  // sweep's CSV is a few lines a point (256 MiB is millions of points).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.out, ec))
    throw InputError("command line", "--out", o.out, "exists and is not a regular file");
  constexpr std::uintmax_t kMaxResumeBytes = std::uintmax_t{256} << 20;
  if (const std::uintmax_t size = std::filesystem::file_size(o.out, ec); !ec && size > kMaxResumeBytes)
    throw InputError(o.out, fmt::format("is {} bytes, more than a sweep's CSV could be ({} MiB): refusing to "
                                        "resume into it",
                                        size, kMaxResumeBytes >> 20));
  const std::string text = read_text_file(o.out);
  const std::vector<CsvLine> lines = complete_csv_lines(text);
  if (lines.empty()) {
    // Killed before the header was complete: what is there is the start of the header. Anything
    // else is some other file without a newline, which resuming would overwrite.
    if (text.size() > header.size() || header.compare(0, text.size(), text) != 0)
      throw InputError(o.out,
                       "is not a sweep's CSV (no complete line, and not the start of this sweep's header); "
                       "refusing to resume into it");
    return rows;
  }
  if (lines.front().text != header) {
    throw InputError(o.out, "header", lines.front().text,
                     fmt::format("is not this sweep's header ({}); refusing to resume into it", header));
  }
  const std::size_t total = e.keys.size();
  const auto shard_count = static_cast<std::size_t>(o.shard_count);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const SweepCsvRow r = parse_sweep_row(lines[i], o.out, header);
    const std::string where = fmt::format("line {}", lines[i].number);
    if (r.points != total) {
      throw InputError(o.out, where + ".points", std::to_string(r.points),
                       fmt::format("this sweep has {} points; refusing to resume into it", total));
    }
    if (r.point % shard_count != static_cast<std::size_t>(o.shard_index - 1)) {
      throw InputError(o.out, where + ".point", std::to_string(r.point),
                       fmt::format("belongs to another shard than {}/{}", o.shard_index, o.shard_count));
    }
    for (std::size_t k = 0; k < e.key_columns.size(); ++k) {
      if (r.fields[2 + k] != e.keys[r.point][k]) {
        throw InputError(o.out, where + "." + e.key_columns[k], r.fields[2 + k],
                         fmt::format("this sweep's point {} has {}; refusing to resume into it", r.point,
                                     e.keys[r.point][k]));
      }
    }
    const std::size_t first = 2 + e.key_columns.size();
    for (std::size_t k = first; k < r.fields.size(); ++k) {
      if (!well_formed_sweep_value(r.fields[k])) {
        throw InputError(o.out, where + "." + e.value_columns[k - first], r.fields[k],
                         "is not a number this sweep writes; refusing to resume into it");
      }
      const SweepValue kind = e.value_kinds.empty() ? SweepValue::number : e.value_kinds[k - first];
      if (const std::string problem = sweep_value_problem(r.fields[k], kind); !problem.empty()) {
        throw InputError(o.out, where + "." + e.value_columns[k - first], r.fields[k],
                         problem + ", which this sweep never writes there; refusing to resume into it");
      }
    }
    if (e.check_values) {
      const std::vector<std::string> values(r.fields.begin() + static_cast<std::ptrdiff_t>(first),
                                            r.fields.end());
      if (const auto bad = e.check_values(r.point, values)) {
        throw InputError(o.out, where + "." + e.value_columns[bad->first], values[bad->first],
                         bad->second + "; refusing to resume into it");
      }
    }
    if (!rows.emplace(r.point, r.fields).second) {
      throw InputError(o.out, where + ".point", std::to_string(r.point), "appears twice");
    }
  }
  return rows;
}

/// Appends complete lines to the partial output, one write and flush per line.
class PartialFile {
 public:
  explicit PartialFile(const std::string& path) : _path(path) {
    if (!path.empty()) {
      _file = std::fopen(path.c_str(), "a");
      if (_file == nullptr) throw Error(fmt::format("{}: cannot open for appending", path));
    }
  }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  ~PartialFile() { close(); }
  void append(const std::string& line) {
    if (_file == nullptr) return;
    if (std::fwrite(line.data(), 1, line.size(), _file) != line.size() || std::fflush(_file) != 0) {
      throw Error(fmt::format("{}: write failed", _path));
    }
  }
  void close() {
    if (_file != nullptr) std::fclose(_file);
    _file = nullptr;
  }

 private:
  std::string _path;
  std::FILE* _file = nullptr;
};

}  // namespace

std::string sweep_value_problem(std::string_view field, SweepValue kind) {
  if (field.empty() || kind == SweepValue::number) return "";
  if (kind == SweepValue::flag) return field == "true" || field == "false" ? "" : "is not true or false";
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v))
    return "is not one number";
  switch (kind) {
    case SweepValue::ratio:
      return v >= 0 && v <= 1 ? "" : "is not a ratio in [0, 1]";
    case SweepValue::count:
      return v >= 0 && v == std::floor(v) ? "" : "is not a whole number >= 0";
    case SweepValue::nonnegative:
      return v >= 0 ? "" : "is negative";
    default:
      return "";
  }
}

SweepOutcome run_sweep(const SweepExperiment& e, const SweepRunOptions& o) {
  check_experiment(e, o);
  const std::string header = sweep_header(e);
  std::map<std::size_t, std::vector<std::string>> done = read_partial(e, o, header);

  SweepOutcome outcome;
  std::vector<std::size_t> pending;
  for (std::size_t p = static_cast<std::size_t>(o.shard_index - 1); p < e.keys.size();
       p += static_cast<std::size_t>(o.shard_count)) {
    outcome.points.push_back(p);
    if (done.count(p) == 0) pending.push_back(p);
  }
  outcome.resumed = done.size();
  std::int64_t items = 0;
  for (std::size_t p : pending) items += e.items[p];
  if (items > o.max_items) {
    throw InputError(
        "command line", "--max-items", std::to_string(o.max_items),
        fmt::format("the sweep has {} work items (task sets over {} points) to compute, more than "
                    "this; raise --max-items, or take fewer sets or points (or a --shard)",
                    items, pending.size()));
  }
  if (o.progress != nullptr) {
    fmt::print(o.progress, "sweep: {} points in this shard, {} already in {}, {} to compute\n",
               outcome.points.size(), outcome.resumed, o.out.empty() ? "no file" : o.out, pending.size());
    std::fflush(o.progress);
  }

  const bool existed = !o.out.empty() && std::filesystem::exists(o.out);
  if (!o.out.empty() && o.before_writing) o.before_writing();
  if (!o.out.empty()) {
    // Start the file afresh from what survived (drops a truncated last line), then append.
    std::string text = header + "\n";
    for (const auto& [p, row] : done) text += join_csv_fields(row) + "\n";
    write_file_atomically(o.out, text);
  }
  PartialFile file(o.out);

  // Work items of the pending points, point-major so early points finish early.
  std::vector<std::pair<std::size_t, int>> work;
  for (std::size_t p : pending) {
    for (int j = 0; j < e.items[p]; ++j) work.emplace_back(p, j);
  }
  std::vector<std::vector<SweepItem>> results(e.keys.size());
  std::vector<std::atomic<int>> remaining(e.keys.size());
  for (std::size_t p : pending) {
    results[p].resize(static_cast<std::size_t>(e.items[p]));
    remaining[p].store(e.items[p]);
  }
  std::mutex lock;  // guards `done`, the file and the progress output
  std::size_t finished = 0;
  const auto start = std::chrono::steady_clock::now();

  std::unique_ptr<tbb::global_control> limit;
  if (o.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(o.threads));
  }
  // A run that fails (an item throws) keeps the rows it finished, to resume from; a file this run
  // created and finished no row of holds only the header, and is removed.
  try {
    tbb::parallel_for(std::size_t{0}, work.size(), [&](std::size_t w) {
      const auto [p, j] = work[w];
      results[p][static_cast<std::size_t>(j)] = e.run_item(p, j);
      if (remaining[p].fetch_sub(1) != 1) return;
      std::vector<std::string> row = full_row(e, p, e.finish_point(p, results[p]));
      results[p] = {};
      const std::string line = join_csv_fields(row) + "\n";
      const std::lock_guard<std::mutex> guard(lock);
      file.append(line);
      done.emplace(p, std::move(row));
      ++finished;
      if (o.progress != nullptr) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::string key;
        for (std::size_t k = 0; k < e.key_columns.size(); ++k) {
          key += fmt::format(" {}={}", e.key_columns[k], e.keys[p][k]);
        }
        fmt::print(o.progress, "sweep: {}/{} points done ({} resumed), point {}:{}, {:.1f} s\n",
                   finished + outcome.resumed, outcome.points.size(), outcome.resumed, p, key, seconds);
        std::fflush(o.progress);
      }
    });
  } catch (...) {
    file.close();
    if (!existed && finished == 0 && !o.out.empty()) {
      std::error_code ec;
      std::filesystem::remove(o.out, ec);
    }
    throw;
  }
  file.close();
  outcome.computed = finished;

  outcome.csv = header + "\n";
  for (auto& [p, row] : done) {
    outcome.csv += join_csv_fields(row) + "\n";
    outcome.rows.push_back(std::move(row));
  }
  if (!o.out.empty()) write_file_atomically(o.out, outcome.csv);
  return outcome;
}

}  // namespace gpurt

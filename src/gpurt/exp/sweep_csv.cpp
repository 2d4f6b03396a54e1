#include "gpurt/exp/sweep_csv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

#include "gpurt/core/error.hpp"
#include "gpurt/exp/sweep.hpp"

namespace gpurt {

std::vector<CsvLine> complete_csv_lines(std::string_view text) {
  std::vector<CsvLine> lines;
  std::size_t number = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) break;  // truncated last line
    ++number;
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back({number, std::string(line)});
    begin = end + 1;
  }
  return lines;
}

std::string join_csv_fields(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += fields[i];
  }
  return out;
}

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    fields.push_back(line.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return fields;
    begin = comma + 1;
  }
}

std::optional<std::size_t> parse_index(const std::string& s) {
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

namespace {
// Calls f(token, number or nullopt) for each space-separated token of `field`; stops and returns
// false as soon as f does.
template <class F>
bool each_token(std::string_view field, F f) {
  std::size_t begin = 0;
  while (true) {
    const std::size_t space = field.find(' ', begin);
    const std::string_view token =
        field.substr(begin, space == std::string_view::npos ? std::string_view::npos : space - begin);
    double v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    bool whole = !token.empty() && end == token.data() + token.size() && ec == std::errc();
    if (!token.empty() && end == token.data() + token.size() && ec == std::errc::result_out_of_range) {
      // A number past the double range: 1e999 is infinite (not finite, as no sweep writes),
      // 1e-400 rounds to 0. from_chars leaves v unset here; strtod gives the value.
      v = std::strtod(std::string(token).c_str(), nullptr);
      whole = true;
    }
    if (!f(whole ? std::optional<double>(v) : std::nullopt)) return false;
    if (space == std::string_view::npos) return true;
    begin = space + 1;
  }
}
}  // namespace

bool well_formed_sweep_value(std::string_view field) {
  if (field.empty() || field == "true" || field == "false") return true;
  return each_token(field, [](std::optional<double> v) { return v && std::isfinite(*v); });
}

bool holds_non_finite_number(std::string_view field) {
  return !each_token(field, [](std::optional<double> v) { return !v || std::isfinite(*v); });
}

SweepCsvRow parse_sweep_row(const CsvLine& line, const std::string& file, const std::string& header) {
  const std::size_t columns = split(header).size();
  SweepCsvRow row;
  row.fields = split(line.text);
  const std::string where = fmt::format("line {}", line.number);
  if (row.fields.size() != columns) {
    throw InputError(file, where, line.text,
                     fmt::format("has {} fields, the header {}", row.fields.size(), columns));
  }
  const auto point = parse_index(row.fields[0]);
  const auto points = parse_index(row.fields[1]);
  if (!points || *points == 0) {
    throw InputError(file, where + ".points", row.fields[1], "must be a positive integer");
  }
  if (!point || *point >= *points) {
    throw InputError(file, where + ".point", row.fields[0],
                     fmt::format("must be an integer in [0, {})", *points));
  }
  row.point = *point;
  row.points = *points;
  return row;
}

std::string merge_sweep_csv(const std::vector<SweepCsvFile>& files) {
  if (files.empty()) throw InputError("merge", "no input file");
  std::string header;
  std::optional<std::size_t> total;
  std::string total_from;
  struct Seen {
    std::string file;
    std::size_t line = 0;
    std::string text;
  };
  std::map<std::size_t, Seen> rows;
  for (const SweepCsvFile& f : files) {
    const std::vector<CsvLine> lines = complete_csv_lines(f.text);
    if (lines.empty()) throw InputError(f.name, "has no complete header line");
    if (header.empty()) {
      header = lines.front().text;
      if (header.rfind("point,points,", 0) != 0) {
        throw InputError(f.name, "header", header, "is not a sweep CSV (it must start with point,points,)");
      }
    } else if (lines.front().text != header) {
      throw InputError(f.name, "header", lines.front().text,
                       fmt::format("differs from {}'s header {}", files.front().name, header));
    }
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const SweepCsvRow r = parse_sweep_row(lines[i], f.name, header);
      const std::string where = fmt::format("line {}", lines[i].number);
      if (!total) {
        total = r.points;
        total_from = fmt::format("{} line {}", f.name, lines[i].number);
      } else if (r.points != *total) {
        throw InputError(f.name, where + ".points", std::to_string(r.points),
                         fmt::format("differs from {} ({} points): not the same sweep", total_from, *total));
      }
      for (std::size_t k = 2; k < r.fields.size(); ++k) {
        if (holds_non_finite_number(r.fields[k])) {
          throw InputError(f.name, where + "." + split(header)[k], r.fields[k],
                           "is not a finite number; no sweep writes it");
        }
      }
      const auto [it, fresh] = rows.emplace(r.point, Seen{f.name, lines[i].number, lines[i].text});
      if (!fresh) {
        throw InputError(f.name, where + ".point", std::to_string(r.point),
                         fmt::format("duplicate: also in {} line {}", it->second.file, it->second.line));
      }
    }
  }
  const std::size_t n = total.value_or(0);
  // Every row's point is in [0, n) (parse_sweep_row), so n - rows are missing. A row's "points"
  // may claim up to 2^64 - 1: list only the first ten missing, scanning at most rows + 10 points
  // (never all n, which took unbounded time and memory; fuzz_sweep_resume found it).
  const std::size_t missing = n - rows.size();
  if (n == 0 || missing != 0) {
    std::string list;
    std::size_t listed = 0;
    for (std::size_t p = 0; p < n && listed < 10; ++p) {
      if (rows.count(p) == 0) list += fmt::format("{}{}", listed++ ? ", " : "", p);
    }
    if (missing > 10) list += ", ...";
    std::string names;
    for (const SweepCsvFile& f : files) names += (names.empty() ? "" : ", ") + f.name;
    throw InputError(
        names, n == 0 ? "no data row in any input"
                      : fmt::format("{} of {} points missing from the inputs: {} (an unfinished shard, or "
                                    "not every shard given?)",
                                    missing, n, list));
  }
  std::string out = header + "\n";
  for (const auto& [p, seen] : rows) out += seen.text + "\n";
  return out;
}

}  // namespace gpurt

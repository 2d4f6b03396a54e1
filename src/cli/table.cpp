#include "table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpurt::cli {

Table::Table(std::vector<std::string> header, std::vector<bool> right)
    : _header(std::move(header)), _right(std::move(right)) {
  _right.resize(_header.size(), false);
}

void Table::add(std::vector<std::string> row) {
  row.resize(_header.size());
  _rows.push_back(std::move(row));
}

std::string Table::render() const {
  std::vector<std::size_t> width(_header.size());
  for (std::size_t c = 0; c < _header.size(); ++c) {
    width[c] = _header[c].size();
    for (const auto& row : _rows) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) out += "  ";
      out +=
          _right[c] ? fmt::format("{:>{}}", cells[c], width[c]) : fmt::format("{:<{}}", cells[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(_header);
  for (const auto& row : _rows) out += line(row);
  return out;
}

std::string format_set(const std::vector<int>& values) {
  if (values.empty()) return "{}";
  bool run = values.size() > 2;
  for (std::size_t i = 1; i < values.size(); ++i) run = run && values[i] == values[i - 1] + 1;
  if (run) return fmt::format("{{{}..{}}}", values.front(), values.back());
  return fmt::format("{{{}}}", fmt::join(values, ", "));
}

std::string format_number(double value) {
  std::string s = fmt::format("{:.3f}", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace gpurt::cli

namespace gpurt::cli {

std::string format_time(Nanos t, TimeUnit unit) {
  const std::int64_t per = nanos_per(unit);
  const bool negative = t.count() < 0;
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(t.count()) : static_cast<std::uint64_t>(t.count());
  const auto uper = static_cast<std::uint64_t>(per);
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / uper);
  if (per > 1 && magnitude % uper != 0) {
    int digits = 0;
    for (std::int64_t p = per; p > 1; p /= 10) ++digits;
    std::string frac = fmt::format("{:0{}}", magnitude % uper, digits);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

}  // namespace gpurt::cli

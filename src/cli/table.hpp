// Plain-text tables for human-readable output.
#pragma once

#include <string>
#include <vector>

namespace gpurt::cli {

/// Columns are left-aligned for text and right-aligned when `right` says so.
class Table {
 public:
  Table(std::vector<std::string> header, std::vector<bool> right);
  void add(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::string> _header;
  std::vector<bool> _right;
  std::vector<std::vector<std::string>> _rows;
};

/// "{1..4}" for a run, "{1, 2, 5}" otherwise.
std::string format_set(const std::vector<int>& values);
/// A number without trailing zeros: 9101, 2501.5, 0.001.
std::string format_number(double value);

}  // namespace gpurt::cli

#include "gpurt/core/time.hpp"

namespace gpurt::cli {
/// An exact decimal rendering of `t` in `unit` (nanosecond resolution, no trailing zeros).
std::string format_time(Nanos t, TimeUnit unit);
}  // namespace gpurt::cli

#include "gpurt/model/placements.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::vector<int> placement_offsets(int h, int k, int placements) {
  if (h < 1 || k < 1 || k > h || placements < 0)
    throw Error(fmt::format("placement_offsets: {} placements of {} units out of {}", placements, k, h));
  const int sets = h - k + 1;  // contiguous sets of k units
  const int n = placements == 0 ? sets : std::min(placements, sets);
  std::vector<int> offsets;
  for (int j = 0; j < n; ++j) {
    // Evenly from 0 to h-k; with n <= sets the rounded values are distinct.
    const int o =
        n == 1 ? 0
               : static_cast<int>((static_cast<std::int64_t>(j) * (sets - 1) * 2 + (n - 1)) / (2 * (n - 1)));
    offsets.push_back(o);
  }
  return offsets;
}

}  // namespace gpurt

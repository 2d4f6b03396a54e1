// Utilisation generators: UUniFast (Bini & Buttazzo 2005) and UUniFast-Discard
// (Emberson, Stafford & Davis, WATERS 2010).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gpurt/core/rng.hpp"

namespace gpurt {

/// n utilisations, each in [0, total], summing to `total` (up to rounding), uniformly
/// distributed over that simplex. Requires n >= 1 and total >= 0; throws gpurt::Error otherwise.
std::vector<double> uunifast(Rng& rng, int n, double total);

struct UUniFastDiscardOptions {
  double max_each = 1.0;       ///< a vector with any value above this is discarded
  int max_attempts = 100'000;  ///< give up (return nullopt) after this many draws
};

/// UUniFast-Discard: draws with UUniFast until every utilisation is <= max_each, which keeps
/// the distribution uniform over the feasible part of the simplex. nullopt when no draw was
/// accepted within max_attempts; throws gpurt::Error when total > n·max_each (impossible).
std::optional<std::vector<double>> uunifast_discard(Rng& rng, int n, double total,
                                                    const UUniFastDiscardOptions& options = {});

}  // namespace gpurt

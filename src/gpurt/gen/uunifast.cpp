#include "gpurt/gen/uunifast.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::vector<double> uunifast(Rng& rng, int n, double total) {
  if (n < 1) throw Error(fmt::format("uunifast: n = {} must be >= 1", n));
  if (!(total >= 0) || !std::isfinite(total)) {
    throw Error(fmt::format("uunifast: total utilisation {} must be finite and >= 0", total));
  }
  std::vector<double> u;
  u.reserve(static_cast<std::size_t>(n));
  double remaining = total;
  for (int i = 1; i < n; ++i) {
    // The sum of the remaining n - i values is remaining · r^(1/(n-i)), r uniform in (0, 1].
    const double r = 1.0 - rng.uniform01();
    const double next = remaining * std::pow(r, 1.0 / static_cast<double>(n - i));
    u.push_back(remaining - next);
    remaining = next;
  }
  u.push_back(remaining);
  return u;
}

std::optional<std::vector<double>> uunifast_discard(Rng& rng, int n, double total,
                                                    const UUniFastDiscardOptions& options) {
  if (!(options.max_each > 0)) throw Error("uunifast_discard: max_each must be > 0");
  if (n >= 1 && total > static_cast<double>(n) * options.max_each) {
    throw Error(fmt::format("uunifast_discard: total {} exceeds n·max_each = {}", total,
                            static_cast<double>(n) * options.max_each));
  }
  // At total = n·max_each the only set is every value at max_each, which a draw never hits.
  if (n >= 1 && total == static_cast<double>(n) * options.max_each)
    return std::vector<double>(static_cast<std::size_t>(n), options.max_each);
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    std::vector<double> u = uunifast(rng, n, total);
    bool ok = true;
    for (double x : u) ok = ok && x <= options.max_each;
    if (ok) return u;
  }
  return std::nullopt;
}

}  // namespace gpurt

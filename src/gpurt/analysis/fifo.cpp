#include "gpurt/analysis/fifo.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpurt {

namespace {

__extension__ typedef unsigned __int128 U128;  // GCC and Clang

// A natural number of any size, little-endian 64-bit digits: just what an exact comparison of
// Σ C_i / T_i with an integer needs. The common denominator Π T_i of a few tasks' periods in
// nanoseconds already passes 2^128, so no fixed width will do.
class Natural {
 public:
  explicit Natural(std::uint64_t v) : _digits{v} {}

  void multiply(std::uint64_t m) {
    U128 carry = 0;
    for (std::uint64_t& d : _digits) {
      const U128 p = static_cast<U128>(d) * m + carry;
      d = static_cast<std::uint64_t>(p);
      carry = p >> 64;
    }
    if (carry != 0) _digits.push_back(static_cast<std::uint64_t>(carry));
  }

  void add(const Natural& o) {
    if (o._digits.size() > _digits.size()) _digits.resize(o._digits.size(), 0);
    U128 carry = 0;
    for (std::size_t i = 0; i < _digits.size(); ++i) {
      const U128 s = static_cast<U128>(_digits[i]) + (i < o._digits.size() ? o._digits[i] : 0) + carry;
      _digits[i] = static_cast<std::uint64_t>(s);
      carry = s >> 64;
    }
    if (carry != 0) _digits.push_back(static_cast<std::uint64_t>(carry));
  }

  /// -1, 0 or 1 as a < b, a == b, a > b.
  friend int compare(const Natural& a, const Natural& b) {
    const std::size_t n = std::max(a._digits.size(), b._digits.size());
    for (std::size_t i = n; i-- > 0;) {
      const std::uint64_t x = i < a._digits.size() ? a._digits[i] : 0;
      const std::uint64_t y = i < b._digits.size() ? b._digits[i] : 0;
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }

 private:
  std::vector<std::uint64_t> _digits;
};

// U_sum = N / D exactly: adding C / T makes N·T + C·D over D·T.
struct ExactUtilization {
  Natural numerator{0}, denominator{1};

  explicit ExactUtilization(const std::vector<FifoTask>& tasks) {
    for (const FifoTask& t : tasks) {
      const auto c = static_cast<std::uint64_t>(std::max<std::int64_t>(t.wcet.count(), 0));
      const auto period = static_cast<std::uint64_t>(t.period.count());
      Natural term = denominator;
      term.multiply(c);
      numerator.multiply(period);
      numerator.add(term);
      denominator.multiply(period);
    }
  }

  /// Sign of U_sum − k, with no rounding.
  int compare_with(std::int64_t k) const {
    if (k < 0) return 1;
    Natural scaled = denominator;
    scaled.multiply(static_cast<std::uint64_t>(k));
    return compare(numerator, scaled);
  }
};

}  // namespace

FifoResult analyse_fifo(const FifoSystem& s) {
  FifoResult r;
  r.gpu_threads = s.gpu_threads;
  for (const FifoTask& t : s.tasks) {
    r.total_utilization += static_cast<double>(t.wcet.count()) / static_cast<double>(t.period.count());
    r.max_block = std::max(r.max_block, t.block);
  }
  const std::int64_t limit = s.gpu_threads - r.max_block + 1;
  r.limit = static_cast<double>(limit);
  // Both verdicts compare the exact rational U_sum: summed in doubles, 1/2 + 1/3 + 1/6 is
  // 0.9999999999999999, which would put a system exactly on the limit below it.
  const ExactUtilization u(s.tasks);
  // Theorem 1 needs b_max > 1: with b_max = 1 blocks never wait for room (malleable model).
  r.reaches_limit = u.compare_with(limit) >= 0;
  r.at_or_above_limit = r.max_block > 1 && r.reaches_limit;
  r.overloaded = u.compare_with(s.gpu_threads) > 0;
  return r;
}

}  // namespace gpurt

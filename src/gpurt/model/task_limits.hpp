// Limits every task-system reader applies (gpurt/smlp@1, rtgpu@1, fifo@1, system@1), so that
// every analysis and simulation of a file that loads stays within 64-bit time sums and a bounded
// amount of work, and so that `gpurt convert` never writes a file another reader refuses.
#pragma once

#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"

namespace gpurt {

/// The largest time a task file may give: 10^15 ns (about 11.6 days). Sums over the bounded
/// numbers of tasks, segments and jobs stay far inside 64 bits.
inline constexpr Nanos kMaxTaskTime{1'000'000'000'000'000};
/// The most tasks a task file may hold (system@1's bound; pbs@1 has its own, 32).
inline constexpr std::size_t kMaxTaskCount = 1024;

/// `t`, or InputError at `node` when it is above kMaxTaskTime.
inline Nanos capped_task_time(const JsonNode& node, Nanos t) {
  if (t > kMaxTaskTime) node.fail("is too large (times are limited to 10^15 ns, about 11.6 days)");
  return t;
}

/// InputError at `tasks` when it holds more than kMaxTaskCount entries.
inline void check_task_count(const JsonNode& tasks, std::size_t count) {
  if (count > kMaxTaskCount) tasks.fail(fmt::format("holds more than {} tasks", kMaxTaskCount));
}

}  // namespace gpurt

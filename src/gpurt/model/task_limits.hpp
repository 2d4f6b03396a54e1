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

/// The largest workload (thread·time, the FIFO model's C_i) a task file may give: 2^62 ns.
inline constexpr Nanos kMaxWorkload{std::int64_t{1} << 62};

/// `w`, a workload of a grid of `threads` threads in all (1 when unknown), or InputError at `node`
/// when it passes kMaxWorkload or one thread's share, w / threads, passes kMaxTaskTime (that share
/// is a time: a 4 s kernel of 270,336 threads is 1.08·10^15 thread·ns, and was refused as a time).
inline Nanos capped_workload(const JsonNode& node, Nanos w, std::int64_t threads) {
  if (w > kMaxWorkload) node.fail("is too large (workloads are limited to 2^62 thread·ns)");
  if (threads < 1) threads = 1;
  if (w.count() / threads + (w.count() % threads != 0 ? 1 : 0) > kMaxTaskTime.count())
    node.fail(
        fmt::format("is too large: one thread's share of it ({} threads) passes 10^15 ns, the limit "
                    "of times (about 11.6 days)",
                    threads));
  return w;
}

/// InputError at `tasks` when it holds more than kMaxTaskCount entries.
inline void check_task_count(const JsonNode& tasks, std::size_t count) {
  if (count > kMaxTaskCount) tasks.fail(fmt::format("holds more than {} tasks", kMaxTaskCount));
}

}  // namespace gpurt

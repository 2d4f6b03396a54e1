#include "gpurt/analysis/kx.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

// L(i, s) as the simulator runs it: sizes beyond the measured ones take the largest measured
// (sim/system.cpp `wcet`).
Nanos wcet_with(const SmlpTask& t, int units) {
  const std::size_t n = std::min(static_cast<std::size_t>(units), t.wcet_by_units.size());
  return t.wcet_by_units[n - 1];
}

Nanos checked_add(Nanos a, Nanos b, const std::string& what) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &s))
    throw Error(fmt::format("k-exclusion bound of {}: overflows 64-bit nanoseconds", what));
  return Nanos{s};
}

}  // namespace

KxResult analyse_kx(const SmlpSystem& system, const KxOptions& options) {
  const int h = system.platform.units();
  if (options.k < 1 || options.k > h)
    throw Error(fmt::format("k-exclusion: k = {} must be 1..{}", options.k, h));
  KxResult r;
  r.k = options.k;
  for (int s = 0; s < options.k; ++s) r.slot_units.push_back(h / options.k + (s < h % options.k ? 1 : 0));
  const std::size_t n = system.tasks.size();
  std::vector<Nanos> hold(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SmlpTask& t = system.tasks[i];
    const SmlpTaskTiming timing = i < system.timing.size() ? system.timing[i] : SmlpTaskTiming{};
    // Any slot may be granted, so the longest kernel over the slot sizes.
    Nanos kernel{0};
    for (int units : r.slot_units) kernel = std::max(kernel, wcet_with(t, units));
    hold[i] = options.job_level_lock
                  ? checked_add(
                        checked_add(checked_add(timing.cpu_before, timing.copy_wait, t.name), kernel, t.name),
                        timing.cpu_after, t.name)
                  : kernel;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const SmlpTask& t = system.tasks[i];
    const SmlpTaskTiming timing = i < system.timing.size() ? system.timing[i] : SmlpTaskTiming{};
    Nanos others{0};
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) others = checked_add(others, hold[j], t.name);
    KxTaskResult tr;
    tr.name = t.name;
    tr.hold = hold[i];
    tr.blocking = Nanos{ceil_div(others.count(), options.k)};  // rounded up: a bound
    tr.response_bound = checked_add(tr.blocking, tr.hold, t.name);
    if (!options.job_level_lock) {
      tr.response_bound = checked_add(
          checked_add(checked_add(timing.cpu_before, timing.copy_wait, t.name), tr.response_bound, t.name),
          timing.cpu_after, t.name);
    }
    tr.deadline = t.deadline;
    tr.schedulable = !t.deadline || tr.response_bound <= *t.deadline;
    if (!tr.schedulable) r.schedulable = false;
    r.tasks.push_back(std::move(tr));
  }
  return r;
}

}  // namespace gpurt

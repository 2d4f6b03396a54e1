#include "gpurt/analysis/smlp.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

__extension__ typedef __int128 Wide;  // GCC and Clang; sums of areas may pass 2^63
constexpr Wide kMaxNanos = std::numeric_limits<std::int64_t>::max();

Nanos checked(Wide value, std::string_view what) {
  if (value > kMaxNanos) throw Error(fmt::format("SMLP analysis: {} overflows 64-bit nanoseconds", what));
  return Nanos{static_cast<std::int64_t>(value)};
}

std::string describe_time(Nanos t, TimeUnit unit) {
  return fmt::format("{} {}", from_nanos(t, unit), to_string(unit));  // shortest exact: 1e+12 hid the ns
}

void check_task(const SmlpTask& task, int units) {
  if (task.wcet_by_units.empty()) throw Error("SMLP task " + task.name + ": no WCET");
  if (task.wcet_by_units.size() > static_cast<std::size_t>(units)) {
    throw Error("SMLP task " + task.name + ": more WCET entries than units");
  }
  for (Nanos l : task.wcet_by_units) {
    if (l.count() <= 0) throw Error("SMLP task " + task.name + ": WCET must be > 0");
  }
  if (task.allowed_units) {
    const auto& s = *task.allowed_units;
    if (s.empty() || s.front() != 1 || !std::is_sorted(s.begin(), s.end()) ||
        std::adjacent_find(s.begin(), s.end()) != s.end() ||
        s.back() > static_cast<int>(task.wcet_by_units.size())) {
      throw Error("SMLP task " + task.name +
                  ": allowed_units must be ascending, contain 1, "
                  "and name only sizes with a WCET");
    }
  }
}

}  // namespace

std::vector<int> allowed_sizes_by_rho(std::span<const Nanos> wcet_by_units, double rho) {
  std::vector<int> sizes;
  if (wcet_by_units.empty()) return sizes;
  // eq. (4): S_i = { k | A(i,k) <= A(i,1)·ρ_i }, with A(i,k) = k·L(i,k), ρ_i the decimal written:
  // k·L(i,k)·10^scale <= L(i,1)·num exactly (1.2 is stored as 1.19999999999999995559, so a
  // binary product would drop an area of exactly 1.2·A(i,1)). Both sides stay below 2^120:
  // L < 2^63, k <= 2^16, 10^12 < 2^40, num < 2^57 (a ρ such as 1e25 has a larger numerator and
  // takes the long double product: signed 128 bits would overflow).
  auto decimal = short_decimal(rho);
  if (decimal && decimal->numerator >= (decltype(decimal->numerator){1} << 57)) decimal.reset();
  const Wide l1 = wcet_by_units[0].count();
  for (std::size_t i = 0; i < wcet_by_units.size(); ++i) {
    const Wide area = static_cast<Wide>(i + 1) * wcet_by_units[i].count();
    bool fits = false;
    if (decimal) {
      Wide scaled = area;
      for (int d = 0; d < decimal->scale; ++d) scaled *= 10;
      fits = scaled <= l1 * static_cast<Wide>(decimal->numerator);
    } else {
      fits = static_cast<long double>(area) <= static_cast<long double>(l1) * static_cast<long double>(rho);
    }
    if (i == 0 || fits) sizes.push_back(static_cast<int>(i + 1));
  }
  return sizes;
}

SmlpResult analyse_smlp(const SmlpSystem& system, const SmlpOptions& options) {
  validate(system.platform);
  SmlpResult result;
  result.units = system.platform.units();
  const int h = result.units;

  std::vector<Wide> areas;
  for (const SmlpTask& task : system.tasks) {
    check_task(task, h);
    SmlpTaskResult r;
    r.name = task.name;
    r.deadline = task.deadline;
    if (task.allowed_units) {
      r.allowed_units = *task.allowed_units;
    } else {
      const double rho = options.rho_override.value_or(task.rho.value_or(system.rho));
      if (!(rho >= 1.0)) throw Error(fmt::format("SMLP task {}: rho {} must be >= 1", task.name, rho));
      r.allowed_units = allowed_sizes_by_rho(task.wcet_by_units, rho);
    }
    // L_i^max and A_i^max over S_i (seed eq. (1)).
    Wide a_max = 0;
    for (int k : r.allowed_units) {
      const Nanos l = task.wcet_by_units[static_cast<std::size_t>(k - 1)];
      r.l_max = std::max(r.l_max, l);
      a_max = std::max(a_max, static_cast<Wide>(k) * l.count());
    }
    r.a_max = checked(a_max, "A_max of " + task.name);
    areas.push_back(a_max);

    // Observation III-3: eq. (4) takes A(i,1) as the most efficient area.
    const Wide a1 = task.wcet_by_units[0].count();
    for (std::size_t k = 2; k <= task.wcet_by_units.size(); ++k) {
      if (static_cast<Wide>(k) * task.wcet_by_units[k - 1].count() < a1) {
        result.warnings.push_back(
            fmt::format("task {}: A(i,{}) < A(i,1): {} units are more efficient than one, so eq. (4)'s "
                        "reference area is not the smallest (Observation III-3 does not hold)",
                        task.name, k, k));
        break;
      }
    }
    result.tasks.push_back(std::move(r));
  }

  Wide total_area = 0;
  for (Wide a : areas) total_area += a;
  for (std::size_t i = 0; i < result.tasks.size(); ++i) {
    SmlpTaskResult& r = result.tasks[i];
    // Lemma 1: a job waits behind at most one request of every other task; all H units work
    // through their areas, so the wait is at most Σ_{j≠i} A_j^max / H (rounded up).
    const Wide others = total_area - areas[i];
    r.blocking_bound = checked((others + h - 1) / h, "blocking bound of " + r.name);
    // Lemma 2: then the job runs for at most L_i^max on whatever size it is granted.
    r.response_bound =
        checked(static_cast<Wide>(r.l_max.count()) + r.blocking_bound.count(), "response bound of " + r.name);
    const SmlpTaskTiming timing = i < system.timing.size() ? system.timing[i] : SmlpTaskTiming{};
    r.job_bound = checked(static_cast<Wide>(timing.cpu_before.count()) + timing.copy_wait.count() +
                              r.response_bound.count() + timing.cpu_after.count(),
                          "job bound of " + r.name);
    r.period = timing.period;
    if (!r.deadline) r.deadline = timing.period;
    const bool with_cpu =
        timing.cpu_before.count() > 0 || timing.cpu_after.count() > 0 || timing.copy_wait.count() > 0;
    const std::string copy_wait = timing.copy_wait.count() > 0
                                      ? " + copy wait " + describe_time(timing.copy_wait, system.time_unit)
                                      : "";
    const std::string what =
        with_cpu ? fmt::format("job bound {} (cpu_before {}{} + L_max {} + blocking {} + cpu_after {})",
                               describe_time(r.job_bound, system.time_unit),
                               describe_time(timing.cpu_before, system.time_unit), copy_wait,
                               describe_time(r.l_max, system.time_unit),
                               describe_time(r.blocking_bound, system.time_unit),
                               describe_time(timing.cpu_after, system.time_unit))
                 : fmt::format("response bound {} (L_max {} + blocking {})",
                               describe_time(r.response_bound, system.time_unit),
                               describe_time(r.l_max, system.time_unit),
                               describe_time(r.blocking_bound, system.time_unit));
    if (r.period && r.job_bound > *r.period) {
      r.schedulable = false;
      r.reason = fmt::format(
          "{} > period {}: its jobs may overlap, and Lemma 1 counts one request of each task, so "
          "the bound does not hold",
          what, describe_time(*r.period, system.time_unit));
    } else if (r.deadline && r.job_bound > *r.deadline) {
      r.schedulable = false;
      r.reason = fmt::format("{} > deadline {}", what, describe_time(*r.deadline, system.time_unit));
    }
    if (!r.schedulable) result.schedulable = false;
  }
  return result;
}

}  // namespace gpurt

// Pieces of the report shared by report.cpp (analyses, orchestration), report_sim.cpp
// (simulations) and report_json.cpp. Not installed API.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/exp/report.hpp"

namespace gpurt::report_detail {

/// a + b, or nullopt when the sum leaves 64-bit nanoseconds.
inline std::optional<Nanos> add(Nanos a, Nanos b) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &s)) return std::nullopt;
  return Nanos{s};
}

/// "12.5 ms": the shortest decimal of the exact value, with the unit.
inline std::string show(Nanos t, TimeUnit unit) {
  return fmt::format("{} {}", from_nanos(t, unit), to_string(unit));
}

/// The models the system yields (each derived once).
struct Models {
  Derived<SmlpSystem> smlp;
  Derived<RtgpuSystem> rtgpu;
  Derived<PbsSystem> pbs;
  Derived<FifoSystem> fifo;
  /// What the file declares of the slowdown of kernels run together (PBS `slowdown`, a `batches`
  /// table), empty when nothing: bounds that let kernels run side by side on the isolated L(i,k)
  /// (smlp, kx, federated) do not apply then.
  std::string interference;
};

/// Appends every analysis, in report order, to report.analyses (and GPUSched's table to
/// report.pbs_table). The federated bounds come from a one-release simulate_system run, which
/// computes the dedicated-unit allocation and its bound.
void add_analyses(Report& report, const Models& models, const ReportOptions& options);

/// Runs one simulated policy (a name of kReportPolicies) over `horizon`.
ReportSimulation simulate_policy(const std::string& policy, const Models& models, const Report& report,
                                 const ReportOptions& options, Nanos horizon);

/// Per-task bounds of a PBS schedule table (latest finish of a task's jobs after their arrivals),
/// appended to `a.tasks` in task order.
void pbs_table_bounds(ReportAnalysis& a, const PbsSystem& system, const std::vector<PbsFrame>& table);

/// The sim/system.hpp options of a report run of `policy` (be, smlp, smlp-prio, kx, federated).
SystemSimOptions system_sim_options(const std::string& policy, const SmlpSystem& smlp,
                                    const ReportOptions& options, Nanos horizon);

}  // namespace gpurt::report_detail

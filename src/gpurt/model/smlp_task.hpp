// SMLP kernel tasks (FFT/SMLP seed §II-C): a GPU kernel whose jobs each request a set of
// allocation units through the SM locking protocol, with its WCET measured per allocation size.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt {

/// One kernel τ_i.
struct SmlpTask {
  std::string name;
  /// wcet_by_units[k-1] = L(i,k), the WCET with exactly k units; may be shorter than H, in
  /// which case sizes past its end are not permitted.
  std::vector<Nanos> wcet_by_units;
  /// ρ_i of eq. (4); when absent the system's rho applies.
  std::optional<double> rho;
  /// Explicit S_i (ascending, contains 1); overrides ρ.
  std::optional<std::vector<int>> allowed_units;
  /// Relative deadline; a task without one does not count for schedulability.
  std::optional<Nanos> deadline;
};

/// Release and CPU parameters of a task: minimum inter-release time (absent: the deadline), and
/// CPU time before and after the GPU work of every job, on the task's own CPU. The analysis
/// adds the CPU time to Lemma 2's bound, takes the period as the deadline when there is none,
/// and claims no bound above the period; `gpurt simulate-system` releases jobs by it.
struct SmlpTaskTiming {
  std::optional<Nanos> period;
  Nanos cpu_before{0};
  Nanos cpu_after{0};
  /// The most a job's copies wait for other tasks' copies on the copy engines (file key
  /// "copy_wait"; a system file's copies derive it, model/system_derive.cpp). Every end-to-end
  /// bound adds it; nothing executes it.
  Nanos copy_wait{0};
};

/// What every end-to-end bound adds to a job's kernel: its CPU and copy time and the most its
/// copies wait (cpu_before + copy_wait + cpu_after, saturating).
Nanos host_bound(const SmlpTaskTiming& timing);

/// A file of kind "gpurt/smlp@1".
struct SmlpSystem {
  Platform platform;
  TimeUnit time_unit = TimeUnit::us;  ///< the unit the file used; results are printed in it
  double rho = 1.1;                   ///< default ρ for tasks without their own
  std::vector<SmlpTask> tasks;
  /// Per task (same index), or empty: every task periodic with its deadline, no CPU segments.
  std::vector<SmlpTaskTiming> timing;
};

/// Parses and validates a "gpurt/smlp@1" document; `file` names it in errors.
/// Throws InputError naming file, JSON path and value.
SmlpSystem parse_smlp_system(const Json& document, const std::string& file);
/// Loads and validates a "gpurt/smlp@1" file.
SmlpSystem load_smlp_system(const std::string& path);
/// The file form of a system, times in its time_unit; parse_smlp_system reads it back.
Json to_json(const SmlpSystem& system);

}  // namespace gpurt

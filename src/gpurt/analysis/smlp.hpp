// SM locking protocol (SMLP), FIFO variant: allowed-size selection and response-time bounds
// (FFT/SMLP seed §III-B, §III-D). Pure functions of a task system.
#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace gpurt {

/// S_i by eq. (4): every k in 1..wcet_by_units.size() with k·L(i,k) <= L(i,1)·ρ.
/// The comparison allows a relative slack of 1e-9 so that a ρ such as 1.3, which binary
/// floating point stores just below 1.3, still admits a size whose area is exactly 1.3·A(i,1).
/// Always contains 1. Ascending.
std::vector<int> allowed_sizes_by_rho(std::span<const Nanos> wcet_by_units, double rho);

/// The SMLP allocation rule (FFT/SMLP §III-A): a satisfied request gets the largest size in
/// `allowed` (ascending) not above `free_units`; 0 when even the smallest does not fit.
/// The one definition used by the analysis, the simulator and the runtime lock (inline: the
/// lock calls it inside its critical section).
inline int smlp_grant(std::span<const int> allowed, int free_units) noexcept {
  const auto it = std::upper_bound(allowed.begin(), allowed.end(), free_units);
  return it == allowed.begin() ? 0 : *std::prev(it);
}

struct SmlpOptions {
  /// Replaces the ρ of every task that selects its sizes by ρ (explicit allowed_units still win).
  std::optional<double> rho_override;
};

/// Per-task numbers. Areas are in unit·nanoseconds.
struct SmlpTaskResult {
  std::string name;
  std::vector<int> allowed_units;  ///< S_i
  Nanos l_max{0};                  ///< L_i^max = max over S_i of L(i,k)
  Nanos a_max{0};                  ///< A_i^max = max over S_i of k·L(i,k), in unit·ns
  Nanos blocking_bound{0};         ///< Lemma 1: ceil(Σ_{j≠i} A_j^max / H)
  Nanos response_bound{0};         ///< Lemma 2: L_i^max + blocking_bound (the kernel, from its request)
  /// A job, release to completion: cpu_before + response_bound + cpu_after (the task's CPU
  /// segments run on its own CPU, SmlpTaskTiming); response_bound when the system has no timing.
  Nanos job_bound{0};
  /// The deadline the verdict uses: the task's, else its period (implicit deadline, as in every
  /// model derived from a system); none: the task does not count for schedulability.
  std::optional<Nanos> deadline;
  std::optional<Nanos> period;  ///< from the timing, when given
  /// job_bound <= deadline, and job_bound <= period when there is one: Lemma 1 lets each other
  /// task have one request ahead, so a task whose jobs could overlap (bound above its period)
  /// is not covered (true without a deadline or period).
  bool schedulable = true;
  std::string reason;  ///< why not schedulable; empty when it is
};

struct SmlpResult {
  int units = 0;            ///< H
  bool schedulable = true;  ///< every task with a deadline meets it
  std::vector<SmlpTaskResult> tasks;
  /// Things worth a look that do not invalidate the bounds (e.g. A(i,k) < A(i,1), against
  /// the seed's Observation III-3 on which eq. (4) relies).
  std::vector<std::string> warnings;
};

/// The SMLP bounds of every task. Throws gpurt::Error if the system breaks the model's
/// invariants (which parse_smlp_system already enforces for files).
SmlpResult analyse_smlp(const SmlpSystem& system, const SmlpOptions& options = {});

}  // namespace gpurt

// Task-system simulation: periodic or sporadic GPU tasks (gpurt/smlp@1 files) whose jobs run a
// CPU segment, one kernel and another CPU segment, with an arbitration policy deciding where
// and when each kernel runs. The GPU itself is the block-level simulator (engine.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/model/smlp_task.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

/// How jobs get the GPU.
enum class Arbitration {
  best_effort,    ///< no arbitration: every kernel is launched at once on the whole GPU
  smlp_fifo,      ///< SM locking protocol, FIFO (FFT/SMLP §III-A): units via smlp_grant
  smlp_priority,  ///< SMLP serving the highest-priority waiter first (tasks listed first rank higher)
  k_exclusion,    ///< k-exclusion lock, FIFO; slot s runs on partition s (Dissertation §6.1.3)
  federated,      ///< each task owns fixed dedicated units (no lock)
};
std::string_view to_string(Arbitration a);
/// "be", "smlp" (FIFO), "smlp-prio", "kx", "federated"; throws gpurt::Error otherwise.
Arbitration parse_arbitration(std::string_view name);

struct SystemSimOptions {
  Arbitration policy = Arbitration::smlp_fifo;
  Nanos horizon{0};  ///< jobs are released in [0, horizon) and all run to completion; > 0
  /// k-exclusion: k slots; with `kx_partitioned` slot s maps to the s-th of k disjoint, nearly
  /// equal unit ranges (larger first), else every holder may use the whole GPU.
  int k = 2;
  bool kx_partitioned = true;
  /// Lock per job instead of per kernel (Dissertation §6.2: acquired at the start of the job,
  /// released at its end, CPU segments included); be and federated are unaffected.
  bool job_level_lock = false;
  /// Sporadic releases: the gap between releases is T·(1 + U(0, jitter)); 0 = periodic.
  double sporadic_jitter = 0;
  bool random_offsets = false;         ///< first release U(0, T) instead of 0
  std::uint64_t seed = 1;              ///< for jitter and offsets
  std::optional<double> rho_override;  ///< as SmlpOptions::rho_override
  bool record_jobs = false;            ///< keep every job's times (TaskSimStats::job_times)
  /// The ideal model: the platform's whole "model" section off (every block runs its isolated
  /// time; no fitted dispatch rule), as `gpurt simulate --model ideal`.
  bool ideal_model = false;
};

/// One completed job (SystemSimOptions::record_jobs): release, GPU request, grant (the policy
/// handed it units, a slot or the device), kernel completion and job completion.
struct SystemJobTimes {
  Nanos release{0}, request{0}, granted{0}, kernel_end{0}, finish{0};
  int units = 0;  ///< units' worth of blocks of its kernel
};

/// Per-task outcome; times are end to end (release to completion of the job's last CPU
/// segment) unless named gpu_* (GPU request to kernel completion).
struct TaskSimStats {
  std::string name;
  int units = 0;          ///< kx: partition size of slot 0; federated: dedicated units; else 0
  std::int64_t jobs = 0;  ///< completed jobs
  Nanos worst_response{0}, mean_response{0};
  Nanos worst_gpu_response{0};
  /// Lemma 2 (FFT/SMLP): the SMLP response bound of the GPU part, and the end-to-end bound
  /// cpu_before + it + cpu_after. Reported for every policy, but it bounds only smlp_fifo.
  Nanos smlp_gpu_bound{0}, smlp_bound{0};
  /// The bound of the simulated policy, where gpurt has one (smlp_fifo: smlp_bound;
  /// federated: cpu_before + L(i, units) + cpu_after while jobs do not overlap; kx with
  /// partitioned slots: the k-exclusion bound of analysis/kx.hpp).
  std::optional<Nanos> policy_bound;
  std::optional<Nanos> deadline;
  std::int64_t deadline_misses = 0;
  std::vector<SystemJobTimes> job_times;  ///< completion order; only with record_jobs
};

struct SystemSimResult {
  std::vector<TaskSimStats> tasks;
  SimStats stats;  ///< of the GPU simulation
};

/// Simulates `system` under `options.policy`. Tasks need a period or a deadline (the
/// inter-release time). Throws gpurt::Error for bad options or a federated system needing more
/// units than the platform has.
SystemSimResult simulate_system(const SmlpSystem& system, const SystemSimOptions& options);

}  // namespace gpurt

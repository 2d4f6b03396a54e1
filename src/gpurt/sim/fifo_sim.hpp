// The FIFO model seed's task system (C_i, T_i, g_i, b_i) run on the block-level simulator:
// each task is one stream of one context, every job one kernel of g_i blocks of b_i threads,
// each block C_i / (g_i·b_i) long (seed §IV), on a GPU whose m threads form one pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/model/fifo_task.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

struct FifoSimOptions {
  std::int64_t jobs = 100;  ///< jobs released per task (>= 1)
  /// Per task (file order), replacing `jobs` when not empty: e.g. the jobs each task releases
  /// in a window (report: ceil(horizon / T_i)). Each >= 1.
  std::vector<std::int64_t> jobs_per_task;
  bool random_offsets = false;  ///< first release uniform in [0, T_i) instead of 0
  std::uint64_t seed = 1;       ///< for the offsets
};

struct FifoTaskSim {
  std::string name;
  Nanos first_release{0};
  std::vector<Nanos> response;  ///< R_{i,k} = f_{i,k} − r_{i,k}, k = 1..jobs, in release order
  Nanos worst{0}, mean{0};
};

struct FifoSimResult {
  std::vector<FifoTaskSim> tasks;  ///< in file order
  SimStats stats;
};

/// The seed's GPU as a platform: ONE SM holding all m threads (and up to m blocks; registers
/// and shared memory unlimited), so a block waits exactly when fewer than b_i threads are
/// free in the whole GPU (rule R1b) -- the seed ignores how threads split among SMs.
/// Throws gpurt::Error when m does not fit the simulator's per-SM thread count (2^31 − 1).
Platform fifo_platform(const FifoSystem& system);

/// Releases `jobs` jobs per task, periodically (T_i apart; a job whose predecessor is still
/// queued waits in the task's stream, rule R2), runs them on fifo_platform() under rules
/// R1-R2 and returns every job's response time. Releases at the same instant arrive in file
/// order (the seed's "arbitrary tie-breaking"). Throws gpurt::Error on bad options.
FifoSimResult simulate_fifo(const FifoSystem& system, const FifoSimOptions& options);

}  // namespace gpurt

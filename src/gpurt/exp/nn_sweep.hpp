// The Dissertation's neural-network sharing experiments on the simulator (§6.2-6.3): Table 6.1
// (four identical US-MobileNet V1 tasks under five management techniques, statistics over all
// four tasks' jobs) and Table 6.3 (a `medium` task on a partition of 15, 20 or 30 CUs or the
// whole GPU, against three small, medium or large competitors on the remaining CUs, or alone;
// statistics over the measured task's jobs) and Table 6.2 (a `medium` task alone or against one
// `medium` competitor, unmanaged, under per-kernel or under per-job locking). Every number is SIMULATED
// (sim/nn_sim.hpp's workload model on the block-level simulator); the CSV says so in its `backend` column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/exp/sweep.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/sim/nn_sim.hpp"

namespace gpurt {

struct NnSweepOptions {
  Platform platform;  ///< the seed's GPU: radeon-vii (60 CUs, 4 SEs)
  std::vector<std::string> tables{"6.1", "6.2", "6.3"};
  Nanos duration{60'000'000'000};  ///< per scenario (the seed: 60 s)
  int warmup_jobs = 2;             ///< per task (the seed: two warm-up iterations)
  std::uint64_t seed = 1;
  NnKernelModel model;
  std::int64_t max_jobs = 1'000'000;  ///< per scenario
};

/// One scenario (a CSV row): what runs and how it is managed.
struct NnScenario {
  std::string table;        ///< "6.1", "6.2" or "6.3"
  std::string task;         ///< the measured task's size (6.1: all four tasks')
  std::string competitors;  ///< 6.1: "3 identical"; 6.2: "none", "1 medium"; 6.3: "none", "small",
                            ///< "medium", "large"
  std::string management;   ///< 6.1: unmanaged, exclusive, 2-exclusion, 2-exclusion-partitioned,
                            ///< 4-way; 6.2: unmanaged, per-kernel, per-job; 6.3: unpartitioned
                            ///< or partitioned
  int partition_cus = 0;    ///< the measured task's CUs; 0: the whole GPU
};

/// The scenarios of `tables`, in the seed's row order. Throws gpurt::Error for an unknown table.
std::vector<NnScenario> nn_scenarios(const std::vector<std::string>& tables, int cus = 60);

/// Runs one scenario.
NnSimResult run_nn_scenario(const NnScenario& s, const NnSweepOptions& o);

/// The sweep: one point per scenario, one work item each; columns backend, table, task,
/// competitors, management, partition_cus | jobs, min_ms, max_ms, mean_ms, stddev_ms.
SweepExperiment nn_sweep_experiment(const NnSweepOptions& o);

}  // namespace gpurt

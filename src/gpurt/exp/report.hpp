// `gpurt report` (issue 18): one gpurt/system@1 task system, every answer. Each seed's model is
// derived from the system (model/system.hpp); every analysis that applies gives per-task bounds and
// a verdict, every policy that applies is simulated on the platform's performance model, and the
// two are cross-checked (a simulated maximum above the bound of the same policy is a bug in one of
// them). A recommendation names the policies that guarantee every deadline and, among them, the
// one that leaves the most GPU to spare. docs/report.md "Report" documents the rules and the JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/system.hpp"
#include "gpurt/sim/system.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// The simulated policies, in report order: the five arbiters of sim/system.hpp on the SMLP
/// model, the RTGPU federated platform (sim/rtgpu_sim.hpp), the GPUSched table played in the
/// simulator (sim/pbs_play.hpp) and the FIFO seed's GPU (sim/fifo_sim.hpp).
inline constexpr const char* kReportPolicies[] = {
    "be", "smlp", "smlp-prio", "kx", "federated", "rtgpu-federated", "pbs-table", "fifo"};

struct ReportOptions {
  /// Policies to simulate (names from kReportPolicies); empty: all of them.
  std::vector<std::string> policies;
  /// Jobs are released in [0, horizon); absent: default_report_horizon(). A horizon longer than
  /// max_jobs_per_task periods of the fastest task is shortened to that.
  std::optional<Nanos> horizon;
  /// Keep every job's times (for the HTML report's timelines and CDFs).
  bool record_jobs = false;
  int k = 2;  ///< kx: k-exclusion slots, each on its own partition (clamped to 1..H)
  /// At most this many jobs released per task in one simulation (the horizon is shortened
  /// for the whole run so that the fastest task stays within it).
  std::int64_t max_jobs_per_task = 2'000;
};

/// The default horizon: the hyperperiod (lcm of the periods, tasks without a period using
/// their deadline), capped at 100 longest periods and so that no task releases more than
/// `max_jobs_per_task` jobs; at least one longest period.
Nanos default_report_horizon(const System& system, std::int64_t max_jobs_per_task = 2'000);

/// The horizon make_report simulates: `options.horizon` or the default, shortened (second: true)
/// so that the fastest task releases at most max_jobs_per_task jobs.
std::pair<Nanos, bool> report_horizon(const System& system, const ReportOptions& options);

struct ReportTaskBound {
  std::string name;
  std::optional<Nanos> bound;  ///< absent: the analysis gives this task no bound
  std::optional<Nanos> deadline;
  std::string note;  ///< e.g. the task's allocation
};

struct ReportAnalysis {
  std::string name;    ///< "smlp", "smlp-prio", "kx", "federated", "rtgpu", ...
  std::string source;  ///< seed and result, e.g. "FFT/SMLP Lemma 2"
  std::string policy;  ///< the simulated policy its bounds cover; empty: none
  bool applicable = false;
  std::string why;                  ///< when not applicable
  std::optional<bool> schedulable;  ///< absent: no verdict (e.g. FIFO Theorem 1 below its limit)
  std::string detail;               ///< allocation, table size, utilisation, ...
  std::vector<ReportTaskBound> tasks;
  std::vector<int> allocation;  ///< federated / rtgpu / stgm: units or SMs per task (task order)
  /// The share of the GPU the guarantee needs for itself: the dedicated units (or SMs) over all
  /// of them for federated allocations; 1 where the analysis assumes the whole GPU (SMLP's
  /// lock over all H units, self-suspension, PBS batches).
  double reserved = 1;
};

struct ReportJob {
  Nanos release{0}, start{0}, end{0}, finish{0};  ///< start/end: on the GPU (granted .. kernel end)
};

struct ReportSimTask {
  std::string name;
  std::int64_t jobs = 0;
  Nanos max_response{0}, mean_response{0};
  std::int64_t misses = 0;
  std::vector<Nanos> responses;     ///< every job's response (record_jobs; where the simulator has them)
  std::vector<ReportJob> timeline;  ///< record_jobs, sim/system.hpp policies only
};

struct ReportSimulation {
  std::string policy;
  bool ran = false;
  std::string why;     ///< when it did not run
  std::string detail;  ///< e.g. the allocation or k
  std::vector<ReportSimTask> tasks;
  /// Busy thread time / (SMs · threads per SM · simulated span); absent where the simulator
  /// does not report its block counters (pbs-table).
  std::optional<double> gpu_utilisation;
  Nanos span{0};  ///< simulated time until the last event
};

struct ReportViolation {
  std::string analysis, policy, task;
  Nanos simulated{0}, bound{0};
};

struct ReportCandidate {
  std::string analysis, policy;
  double spare = 0;                       ///< 1 − ReportAnalysis::reserved: GPU left to other work
  std::optional<double> gpu_utilisation;  ///< of its simulation, when it ran
  std::optional<Nanos> min_slack;         ///< min over tasks of deadline − bound
};

/// One task's figures from result files (`gpurt report --measured DIR`).
struct ReportMeasuredTask {
  std::string name;
  std::int64_t jobs = 0;
  Nanos max_response{0}, mean_response{0};
  std::int64_t misses = 0;  ///< responses above the deadline (D, else T)
};

/// A measured max above a bound: the run's max against an analysis' bound (not a consistency
/// violation: the run is unarbitrated and the bound assumes its policy and the model's WCETs).
struct ReportMeasuredAbove {
  std::string analysis, task;
  Nanos measured{0}, bound{0};
};

/// The result files of `gpurt bench SYSTEM --out DIR` (model/system_scenario.hpp).
struct ReportMeasured {
  std::string source;                     ///< DIR
  bool simulated = false;                 ///< the files say they came from the simulator (--backend sim)
  std::vector<ReportMeasuredTask> tasks;  ///< task order
  std::vector<ReportMeasuredAbove> above;
};

struct Report {
  TimeUnit time_unit = TimeUnit::us;
  std::string platform;
  /// The performance model the simulations ran on: "calibrated" (the platform's "model"
  /// section) or "ideal" (none: every block runs its isolated time; `gpurt report --model ideal`,
  /// or a platform that carries no fitted model).
  std::string model;
  Nanos horizon{0};
  bool horizon_capped = false;  ///< the given horizon was shortened to max_jobs_per_task jobs
  std::vector<ReportAnalysis> analyses;
  std::vector<ReportSimulation> simulated;
  /// Analyses with every deadline guaranteed, in report order.
  std::vector<ReportCandidate> guaranteed;
  /// The guaranteed policy that leaves the most GPU to spare (largest `spare`; ties: the lower
  /// simulated GPU utilisation, then the larger minimum slack); absent when none is guaranteed.
  std::optional<ReportCandidate> best;
  std::string recommendation;       ///< one sentence with the deciding numbers
  int checked = 0;                  ///< (task, bound, simulated max) pairs compared
  std::vector<PbsFrame> pbs_table;  ///< GPUSched's table (empty: none), played by pbs-table
  std::vector<ReportViolation> violations;
  std::optional<ReportMeasured> measured;  ///< --measured DIR
};

/// Runs every analysis and simulation. Throws InputError for an unknown policy name or a
/// horizon <= 0; a model or simulation that does not apply is data in the report.
Report make_report(const System& system, const ReportOptions& options = {});

/// The consistency check (make_report runs it): for every applicable analysis whose policy was
/// simulated, every task's simulated maximum is compared with its bound; counts into
/// `report.checked` and appends each maximum above its bound to `report.violations`.
void check_consistency(Report& report);

/// Per task of `system`, the response of each job in `trace` (result files of `gpurt bench
/// SYSTEM`, one instance per task, matched by label = task name): job k (k-th iteration, from 0)
/// is released at release_time + k·T (T: period, else deadline) and ends at its execute end.
/// Throws InputError (naming `source`) for a task without a result or an unknown label.
ReportMeasured measured_figures(const System& system, const Trace& trace, const std::string& source);

/// Adds `measured` to the report and fills measured.above: every task's measured max against
/// the bound of every applicable analysis.
void add_measured(Report& report, ReportMeasured measured);

/// The JSON form (docs/report.md): {"format": "gpurt/report@1", "time_unit", "platform", "model",
/// "horizon", "analyses", "simulated", "measured": null, "recommendation", "consistency"}, times
/// in the report's unit.
Json report_json(const Report& report);

}  // namespace gpurt

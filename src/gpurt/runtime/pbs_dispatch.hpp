// The PBS table dispatcher on a real machine (PBS seed §4.1): loops over the frames of a schedule
// table, launches each frame's jobs together in the table's submission order, waits for the
// batch to complete (the seed's cudaDeviceSynchronize), and measures what happened against the
// table. The GPU work is behind PbsLauncher, so this file needs no CUDA: a CUDA launcher (one
// stream per task) plugs in the same way as the tests' fake one.
//
// The same two strategies as the simulator's play_pbs_table (sim/pbs_play.hpp), on the host's
// CLOCK_MONOTONIC instead of simulated time:
//   time_triggered  a timer (clock_nanosleep, absolute) releases each frame at its table start;
//   when_done       each frame is released when the previous one has completed and its own
//                   jobs have arrived, reclaiming time that jobs did not use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/analysis/pbs_model.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt {

/// Runs the jobs of a frame. dispatch_pbs_table calls it from its own (the calling) thread only:
/// launch() once per job of a frame, in submission order, then wait_frame() once.
class PbsLauncher {
 public:
  virtual ~PbsLauncher() = default;
  /// Starts `job` (of `task`, whose shape the kernel launch needs) and returns without waiting
  /// for it: the jobs of a frame must run together (a CUDA launcher: the kernel on the task's
  /// own stream).
  virtual void launch(const PbsJobRef& job, const PbsTask& task) = 0;
  /// Returns when every job launched since the last wait_frame() has completed. `ends` holds
  /// one entry per such job, in launch order, all 0: write each job's completion time there, as
  /// CLOCK_MONOTONIC nanoseconds (gpurt::monotonic_ns); an entry left at 0 is taken to be the
  /// time wait_frame() returned (what a launcher that only synchronises the device knows: an
  /// upper bound). An entry before the job's launch or after the return is a launcher bug
  /// (dispatch_pbs_table throws gpurt::Error).
  virtual void wait_frame(std::span<Nanos> ends) = 0;
};

enum class PbsDispatchStrategy {
  time_triggered,  ///< a timer releases each frame at its start in the table
  when_done,       ///< each frame starts when the previous one ends and its jobs have arrived
};

/// The most hyperperiods one dispatch may run.
inline constexpr std::int64_t kPbsDispatchMaxHyperperiods = 1'000'000;
/// The most job records one dispatch may keep (jobs in the table × hyperperiods), about 64 bytes
/// each, reserved up front.
inline constexpr std::int64_t kPbsDispatchMaxJobs = 1'000'000;

struct PbsDispatchOptions {
  PbsDispatchStrategy strategy = PbsDispatchStrategy::time_triggered;
  /// How often the table is played back to back, 1..kPbsDispatchMaxHyperperiods: repetition r
  /// shifts every frame, arrival and deadline by r·H.
  std::int64_t hyperperiods = 1;
};

/// One frame as dispatched. Times are nanoseconds from the run's time 0 (the table's time 0 of
/// the first hyperperiod, PbsDispatchResult::run_start_ns on CLOCK_MONOTONIC).
struct PbsDispatchedFrame {
  std::size_t table_index = 0;   ///< into the table
  std::int64_t hyperperiod = 0;  ///< repetition r (0-based)
  Nanos planned{0};              ///< r·H + the frame's table start
  /// When the strategy let the frame go: `planned` (time-triggered, or later when the previous
  /// frame overran); max(previous frame's end, latest arrival of its jobs) (when-done).
  Nanos release{0};
  Nanos launch{0};  ///< just before its first job's launch()
  Nanos end{0};     ///< the batch's completion: its last job's end (as PbsDispatchedJob::end)
  /// Ended after the next frame's planned start (r·H + its table start; after the last frame,
  /// the first frame of the next hyperperiod): under time-triggered the next frame starts late.
  bool overran = false;
  /// The dispatcher's own delay (timer wake-up, scheduling): launch - release, >= 0.
  Nanos lateness() const { return launch - release; }
};

/// One job as dispatched; times as in PbsDispatchedFrame.
struct PbsDispatchedJob {
  PbsJobRef job;                 ///< task and job index within its hyperperiod
  std::int64_t hyperperiod = 0;  ///< repetition r
  std::size_t frame = 0;         ///< index into PbsDispatchResult::frames
  Nanos arrival{0};              ///< r·H + k·T
  Nanos deadline{0};             ///< r·H + k·T + D (absolute deadline)
  Nanos launch{0};               ///< just before its launch()
  Nanos end{0};                  ///< its completion as the launcher reported it
  Nanos response() const { return end - arrival; }
  bool missed() const { return end > deadline; }
};

struct PbsDispatchResult {
  std::int64_t run_start_ns = 0;           ///< CLOCK_MONOTONIC time of the run's time 0
  Nanos hyperperiod{0};                    ///< H of the system
  std::vector<PbsDispatchedFrame> frames;  ///< in dispatch order (table order, per hyperperiod)
  std::vector<PbsDispatchedJob> jobs;      ///< in launch order
  std::int64_t deadline_misses = 0;        ///< jobs with missed()
  std::int64_t overruns = 0;               ///< frames with overran
  Nanos max_lateness{0};                   ///< the largest frame lateness()
};

/// A dry run on the host, no GPU: each job "runs" the model's time from its launch, as
/// play_pbs_table times it (the batch's table completion when `system` has one for the frame's
/// tasks, else C alone or ceil(C·slowdown) in company), and wait_frame sleeps until the last of
/// them ends, reporting each job's end. What it measures is the dispatcher's own timing on this
/// machine: timer lateness, and what it carries into the frames after.
class PbsHostLauncher : public PbsLauncher {
 public:
  explicit PbsHostLauncher(const PbsSystem& system);
  void launch(const PbsJobRef& job, const PbsTask& task) override;
  void wait_frame(std::span<Nanos> ends) override;

 private:
  std::shared_ptr<const PbsJobs> _jobs;
  std::vector<std::pair<std::int64_t, int>> _running;  // launch time (ns), task index
};

/// A launcher on CUDA device `device`: one non-blocking stream per task, each job a kernel of the
/// task's blocks × threads whose every block spins (on the GPU's global timer) for the task's
/// C; wait_frame synchronises each job's stream in launch order and takes the time each
/// synchronisation returns as that job's end (an upper bound). Throws gpurt::Error without CUDA,
/// without the device, or when a block shape cannot be launched (runtime/pbs_gpu.cpp); the
/// device must have the SM count of the system's platform (the table's batches were found
/// eligible on it), else InputError naming --device.
std::unique_ptr<PbsLauncher> make_pbs_gpu_launcher(const PbsSystem& system, int device);

/// Dispatches `table` (one hyperperiod's schedule of `system`, as analyse_pbs returns it)
/// `options.hyperperiods` times through `launcher`, on the calling thread, and returns what it
/// measured; the call lasts about hyperperiods·H. Deadline misses and overruns are data on the
/// result, not errors.
///
/// Throws gpurt::InputError, before launching anything, on: no frames, a frame with no jobs, a
/// task or job index the system does not have, a frame starting before 0 or at/after H, ending
/// before its start, starting before the previous frame's start or end, or ending after the next
/// hyperperiod's first frame starts; hyperperiods outside 1..kPbsDispatchMaxHyperperiods or more
/// than kPbsDispatchMaxJobs job records. Throws gpurt::Error when a time would pass 2^63 ns or
/// the launcher reports an impossible completion time; an exception from the launcher passes
/// through (jobs it already started are its to clean up). The table is not checked against the
/// model (eligibility, completion times): that is check_pbs_table's job.
PbsDispatchResult dispatch_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table,
                                     PbsLauncher& launcher, const PbsDispatchOptions& options = {});

}  // namespace gpurt

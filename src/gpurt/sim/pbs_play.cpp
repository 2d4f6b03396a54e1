#include "gpurt/sim/pbs_play.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpurt/analysis/pbs_model.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

namespace {

// How long the blocks of job `task` run in a frame holding `set`: the batch's completion when
// the file's table gives one (the model knows nothing finer), else the job's own time (C alone,
// ceil(C·slowdown) in company) — so the frame lasts exactly the model's completion.
std::int64_t block_time(const PbsJobs& jobs, TaskMask set, int task, bool table_entry) {
  if (table_entry || (set & (set - 1)) == 0) {
    return table_entry ? jobs.completion(set) : jobs.wcet[static_cast<std::size_t>(task)];
  }
  return jobs.wcet_slowed[static_cast<std::size_t>(task)];
}

std::int64_t scaled(std::int64_t t, double fraction) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(static_cast<double>(t) * fraction)));
}

}  // namespace

PbsPlayResult play_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table,
                             const PbsPlayOptions& options) {
  if (!(options.execution_fraction > 0 && options.execution_fraction <= 1)) {
    throw Error("play_pbs_table: execution_fraction must be in (0, 1]");
  }
  const PbsJobs jobs(system);
  std::vector<TaskMask> sets;
  for (const PbsFrame& f : table) {
    TaskMask set = 0;
    for (const PbsJobRef& j : f.jobs) {
      if (j.task < 0 || j.task >= jobs.n) throw Error("play_pbs_table: unknown task index");
      set |= TaskMask{1} << j.task;
    }
    sets.push_back(set);
  }
  // Frame starts: the table's (time-triggered), or found frame by frame (when_done), each
  // simulation replaying the whole prefix so the device state (round-robin pointer) carries on.
  std::vector<std::int64_t> starts;
  for (const PbsFrame& f : table) starts.push_back(f.start.count());
  PbsPlayResult result;
  const std::size_t rounds = options.strategy == PbsPlayStrategy::when_done ? table.size() : 1;
  SimResult sim;
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t upto = options.strategy == PbsPlayStrategy::when_done ? round + 1 : table.size();
    Scenario sc;
    sc.name = "pbs-table";
    // One table's frames: bounded by the table (and the analysis's vertex cap), not by the
    // config limit gpurt_sim.max_blocks.
    sc.sim.max_blocks = std::numeric_limits<std::int64_t>::max();
    for (std::size_t f = 0; f < upto; ++f) {
      const bool entry = system.batches.end() != std::find_if(system.batches.begin(), system.batches.end(),
                                                              [&](const PbsBatchTime& b) {
                                                                TaskMask m = 0;
                                                                for (int i : b.tasks) m |= TaskMask{1} << i;
                                                                return m == sets[f];
                                                              });
      for (const PbsJobRef& j : table[f].jobs) {
        const PbsTask& task = system.tasks[static_cast<std::size_t>(j.task)];
        ScenarioInstance inst;
        inst.plugin = "timer_spin";
        inst.label = fmt::format("{}#{}", task.name, j.job);
        inst.log_name = fmt::format("frame{}_{}.json", f, inst.label);
        inst.thread_count = task.threads;
        inst.block_count = task.blocks;
        inst.release_time = Nanos{starts[f]};
        inst.max_iterations = 1;
        HostAction launch;
        launch.kind = HostAction::Kind::kernel;
        launch.label = inst.label;
        launch.kernel.name = inst.label;
        launch.kernel.blocks = task.blocks;
        launch.kernel.shape = task.shape();
        launch.kernel.block_time =
            Nanos{scaled(block_time(jobs, sets[f], j.task, entry), options.execution_fraction)};
        launch.kernel.wcet_time = true;  // from C: the performance model may only shorten it
        inst.actions.push_back(std::move(launch));
        sc.instances.push_back(std::move(inst));
      }
    }
    sim = simulate(sc, system.platform);
    if (options.strategy == PbsPlayStrategy::when_done && round + 1 < table.size()) {
      std::int64_t end = 0;
      for (const InstanceTrace& it : sim.trace.instances) {
        for (const BlockRecord& b : it.iterations.at(0).kernels.at(0).blocks)
          end = std::max(end, b.end.count());
      }
      std::int64_t latest_arrival = 0;
      for (const PbsJobRef& j : table[round + 1].jobs)
        latest_arrival = std::max(latest_arrival, jobs.arrival(j.task, j.job));
      starts[round + 1] = std::max(end, latest_arrival);
    }
  }
  // Read the frames back: instances are in table order.
  std::size_t index = 0;
  for (std::size_t f = 0; f < table.size(); ++f) {
    PbsPlayedFrame pf;
    pf.start = Nanos{starts[f]};
    pf.model_end = Nanos{starts[f] + scaled(jobs.completion(sets[f]), options.execution_fraction)};
    std::int64_t end = 0;
    for (const PbsJobRef& j : table[f].jobs) {
      const KernelRecord& k = sim.trace.instances.at(index++).iterations.at(0).kernels.at(0);
      std::int64_t job_end = 0;
      for (const BlockRecord& b : k.blocks) {
        pf.started_at_once = pf.started_at_once && b.start.count() == starts[f];
        job_end = std::max(job_end, b.end.count());
      }
      end = std::max(end, job_end);
      if (job_end > jobs.due(j.task, j.job) && result.deadlines_met) {
        result.deadlines_met = false;
        if (result.first_problem.empty()) {
          // In the file's unit, as every other time the commands print.
          const TimeUnit u = system.time_unit;
          result.first_problem = fmt::format("{}#{} ends at {} {}, after its deadline {} {}",
                                             system.tasks[static_cast<std::size_t>(j.task)].name, j.job,
                                             from_nanos(Nanos{job_end}, u), to_string(u),
                                             from_nanos(Nanos{jobs.due(j.task, j.job)}, u), to_string(u));
        }
      }
    }
    pf.end = Nanos{end};
    const bool matches = pf.started_at_once && pf.end == pf.model_end;
    if (!matches && result.matches_model) {
      result.matches_model = false;
      if (result.first_problem.empty()) {
        result.first_problem =
            pf.started_at_once
                ? fmt::format("frame {} ends at {} ns, the model says {} ns", f, end, pf.model_end.count())
                : fmt::format("frame {}: not every block started at {} ns", f, starts[f]);
      }
    }
    result.frames.push_back(pf);
  }
  return result;
}

}  // namespace gpurt

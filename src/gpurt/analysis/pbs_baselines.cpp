// The §6 baselines (EDFserial, EDFParallel), the policy dispatch and the table checker.
#include <algorithm>
#include <chrono>
#include <tuple>

#include <fmt/format.h>

#include "gpurt/analysis/pbs_internal.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

namespace pbs_detail {

// EDF order of ready jobs: deadline, then arrival (the job waiting longer), then task index.
// Arrival as the second key reproduces the seed's Figure 2a, where J10 (arrived at 0) runs
// before J7 (arrived at 5) although both are due at 10, and J7 misses.
std::vector<int> edf_order(const PbsJobs& jobs, TaskMask ready, std::span<const std::int32_t> done) {
  std::vector<int> order;
  for (int i = 0; i < jobs.n; ++i) {
    if ((ready & (TaskMask{1} << i)) != 0) order.push_back(i);
  }
  auto key = [&](int i) {
    const auto k = done[static_cast<std::size_t>(i)];
    return std::make_tuple(jobs.due(i, k), jobs.arrival(i, k), i);
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

PbsResult edf_baseline(const PbsSystem& system, bool parallel) {
  const auto start = std::chrono::steady_clock::now();
  const PbsJobs jobs(system);
  PbsOracle oracle(system);
  PbsResult result;
  result.policy = parallel ? PbsPolicy::edf_parallel : PbsPolicy::edf_serial;
  result.hyperperiod = Nanos{jobs.h};
  std::vector<std::int32_t> done(static_cast<std::size_t>(jobs.n), 0);
  std::int64_t t = 0, finished = 0;
  std::vector<PbsFrame> frames;
  std::size_t first_miss_frame = 0;
  while (finished < jobs.total_jobs) {
    TaskMask ready = jobs.ready(t, done);
    if (ready == 0) {  // batch-level work conserving: idle only when nothing is ready
      t = jobs.next_arrival(t, done);
      continue;
    }
    std::vector<int> batch;
    TaskMask set = 0;
    for (int i : edf_order(jobs, ready, done)) {
      if (!parallel && !batch.empty()) break;
      batch.push_back(i);
      // EDFParallel: a job joins when the batch stays eligible (§6); EDFserial: one job.
      if (batch.size() > 1 && !oracle.eligible(batch)) {
        batch.pop_back();
        continue;
      }
      set |= TaskMask{1} << i;
    }
    const std::int64_t end = t + jobs.completion(set);
    frames.push_back(make_frame(t, end, batch, done));
    for (int i : batch) {
      auto& k = done[static_cast<std::size_t>(i)];
      if (end > jobs.due(i, k)) {
        if (!result.first_miss) {
          result.first_miss = PbsJobRef{i, k};
          first_miss_frame = frames.size();
        }
        result.misses.push_back(PbsJobRef{i, k});
      }
      ++k;
      ++finished;
    }
    ++result.stats.edges;
    t = end;
  }
  result.schedulable = !result.first_miss.has_value();
  if (!result.schedulable) frames.resize(first_miss_frame);
  result.table = std::move(frames);
  result.stats.vertices_created = result.stats.edges + 1;
  result.stats.oracle_queries = oracle.queries();
  result.stats.oracle_simulations = oracle.simulations();
  result.stats.schedulable_end_vertices = result.schedulable ? 1 : 0;
  result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace pbs_detail

std::string_view to_string(PbsPolicy policy) {
  switch (policy) {
    case PbsPolicy::gpusched:
      return "gpusched";
    case PbsPolicy::gpusched_reference:
      return "gpusched-reference";
    case PbsPolicy::edf_serial:
      return "edf-serial";
    case PbsPolicy::edf_parallel:
      return "edf-parallel";
  }
  return "?";
}

std::optional<PbsPolicy> parse_pbs_policy(std::string_view text) {
  for (PbsPolicy p :
       {PbsPolicy::gpusched, PbsPolicy::gpusched_reference, PbsPolicy::edf_serial, PbsPolicy::edf_parallel}) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

namespace {
void validate_pbs(const PbsSystem& system) {
  if (system.tasks.empty() || system.tasks.size() > 32) throw Error("PBS: need 1 to 32 tasks");
  for (const PbsTask& t : system.tasks) {
    if (t.period.count() <= 0 || t.wcet.count() <= 0 || t.deadline.count() <= 0 || t.deadline > t.period ||
        !(t.slowdown >= 1.0)) {
      throw Error("PBS: task " + t.name + " breaks 0 < D <= T, C > 0, slowdown >= 1");
    }
    std::vector<int> alone{static_cast<int>(&t - system.tasks.data())};
    if (!PbsOracle(system).eligible(alone)) throw Error("PBS: task " + t.name + " cannot start on the GPU");
  }
}
}  // namespace

PbsResult analyse_pbs(const PbsSystem& system, const PbsOptions& options) {
  validate_pbs(system);
  if (options.policy == PbsPolicy::gpusched || options.policy == PbsPolicy::gpusched_reference) {
    return analyse_pbs_jobs(system, PbsJobs(system), options);
  }
  const std::int64_t h = pbs_hyperperiod(system).count();
  std::int64_t jobs = 0;
  for (const PbsTask& t : system.tasks) jobs += h / t.period.count();  // each <= 10^6, at most 32 tasks
  if (jobs > options.max_jobs) {
    throw Error(
        fmt::format("PBS {}: the hyperperiod holds {} jobs, more than --max-jobs {}; raise --max-jobs",
                    to_string(options.policy), jobs, options.max_jobs));
  }
  return pbs_detail::edf_baseline(system, options.policy == PbsPolicy::edf_parallel);
}

PbsResult analyse_pbs_jobs(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options) {
  validate_pbs(system);
  switch (options.policy) {
    case PbsPolicy::gpusched:
      return pbs_detail::gpusched_fast(system, jobs, options);
    case PbsPolicy::gpusched_reference:
      return pbs_detail::gpusched_reference(system, jobs, options);
    case PbsPolicy::edf_serial:
    case PbsPolicy::edf_parallel:
      break;
  }
  throw Error("PBS: the baselines run on the periodic jobs only");
}

std::string check_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table) {
  const PbsJobs jobs(system);
  PbsOracle oracle(system);
  std::vector<std::int32_t> done(static_cast<std::size_t>(jobs.n), 0);
  std::int64_t t = 0;
  for (std::size_t f = 0; f < table.size(); ++f) {
    const PbsFrame& frame = table[f];
    const TaskMask ready = jobs.ready(t, done);
    const std::int64_t expected_start = ready != 0 ? t : jobs.next_arrival(t, done);
    if (frame.start.count() != expected_start) {
      return fmt::format("frame {} starts at {} ns, PBS starts it at {} ns", f, frame.start.count(),
                         expected_start);
    }
    std::vector<int> order;
    TaskMask set = 0;
    for (const PbsJobRef& j : frame.jobs) {
      if (j.task < 0 || j.task >= jobs.n) return fmt::format("frame {}: no task {}", f, j.task);
      const auto k = done[static_cast<std::size_t>(j.task)];
      if (j.job != k || (set & (TaskMask{1} << j.task)) != 0) {
        return fmt::format("frame {}: job {} of task {} is not its task's next job", f, j.job, j.task);
      }
      if (jobs.arrival(j.task, k) > expected_start) return fmt::format("frame {}: a job has not arrived", f);
      order.push_back(j.task);
      set |= TaskMask{1} << j.task;
    }
    if (order.empty()) return fmt::format("frame {} is empty", f);
    if (!oracle.eligible(order)) return fmt::format("frame {}: the batch is not eligible", f);
    const std::int64_t end = expected_start + jobs.completion(set);
    if (frame.end.count() != end)
      return fmt::format("frame {} ends at {} ns, the model says {} ns", f, frame.end.count(), end);
    for (int i : order) {
      auto& k = done[static_cast<std::size_t>(i)];
      if (end > jobs.due(i, k))
        return fmt::format("frame {}: job {} of task {} misses its deadline", f, k, i);
      ++k;
    }
    t = end;
  }
  for (int i = 0; i < jobs.n; ++i) {
    if (done[static_cast<std::size_t>(i)] != jobs.jobs[static_cast<std::size_t>(i)]) {
      return fmt::format("task {} runs {} of its {} jobs", i, done[static_cast<std::size_t>(i)],
                         jobs.jobs[static_cast<std::size_t>(i)]);
    }
  }
  return {};
}

}  // namespace gpurt

#include "gpurt/runtime/pbs_dispatch.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "gpurt/analysis/pbs_model.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

// Every time the run computes is a sum or product of table times, H and the clock: each one is
// checked, so an absurd table or repetition count is an error, never a wrapped (early) time.
Nanos add(Nanos a, Nanos b) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &s)) {
    throw Error(fmt::format("PBS dispatch: {} ns + {} ns passes 2^63 ns", a.count(), b.count()));
  }
  return Nanos{s};
}

Nanos mul(std::int64_t n, Nanos t) {
  std::int64_t p = 0;
  if (__builtin_mul_overflow(n, t.count(), &p)) {
    throw Error(fmt::format("PBS dispatch: {} × {} ns passes 2^63 ns", n, t.count()));
  }
  return Nanos{p};
}

// Absolute sleep on CLOCK_MONOTONIC: never wakes before `at_ns` (a relative sleep would drift by
// the time spent between reading the clock and sleeping), restarted after a signal.
void sleep_until(std::int64_t at_ns) {
  if (monotonic_ns() >= at_ns) return;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(at_ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(at_ns % 1'000'000'000);
  for (;;) {
    const int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    if (rc == 0) return;
    if (rc != EINTR) throw Error(fmt::format("PBS dispatch: clock_nanosleep failed: {}", std::strerror(rc)));
  }
}

[[noreturn]] void bad_table(const std::string& path, const std::string& value, const std::string& problem) {
  throw InputError("PBS table", path, value, problem);
}

std::string ns(Nanos t) { return fmt::format("{} ns", t.count()); }

// What the dispatcher relies on: indices it can look up, and frames that follow one another
// inside one hyperperiod, so that repetitions do not overlap either.
void validate_table(const PbsSystem& system, const PbsJobs& jobs, const std::vector<PbsFrame>& table) {
  if (table.empty()) throw InputError("PBS table", "has no frames to dispatch");
  const Nanos h{jobs.h};
  for (std::size_t i = 0; i < table.size(); ++i) {
    const PbsFrame& f = table[i];
    const std::string at = fmt::format("table[{}]", i);
    if (f.start < Nanos{0}) bad_table(at + ".start", ns(f.start), "must be >= 0");
    if (f.start >= h) {
      bad_table(at + ".start", ns(f.start), fmt::format("must be before the hyperperiod's end {}", ns(h)));
    }
    if (f.end <= f.start) {
      bad_table(at + ".end", ns(f.end), fmt::format("must be after its start {}", ns(f.start)));
    }
    if (i > 0) {
      const PbsFrame& p = table[i - 1];
      if (f.start < p.start) {
        bad_table(
            at + ".start", ns(f.start),
            fmt::format("before frame {}'s start {} (frames must be in time order)", i - 1, ns(p.start)));
      }
      if (f.start < p.end) {
        bad_table(at + ".start", ns(f.start),
                  fmt::format("overlaps frame {}, which ends at {}", i - 1, ns(p.end)));
      }
    }
    if (f.jobs.empty()) bad_table(at + ".jobs", "", "a frame needs at least one job");
    for (std::size_t j = 0; j < f.jobs.size(); ++j) {
      const PbsJobRef& job = f.jobs[j];
      const std::string jat = fmt::format("{}.jobs[{}]", at, j);
      if (job.task < 0 || job.task >= jobs.n) {
        bad_table(jat + ".task", std::to_string(job.task),
                  fmt::format("no such task (the system has {})", jobs.n));
      }
      const std::int64_t count = jobs.jobs[static_cast<std::size_t>(job.task)];
      if (job.job < 0 || job.job >= count) {
        bad_table(jat + ".job", std::to_string(job.job),
                  fmt::format("task {} has jobs 0..{} in a hyperperiod",
                              system.tasks[static_cast<std::size_t>(job.task)].name, count - 1));
      }
      // A job cannot run before it arrives (time-triggered releases a frame at its start).
      if (f.start.count() < jobs.arrival(job.task, job.job)) {
        bad_table(at + ".start", ns(f.start),
                  fmt::format("before job {}#{} arrives at {}",
                              system.tasks[static_cast<std::size_t>(job.task)].name, job.job,
                              ns(Nanos{jobs.arrival(job.task, job.job)})));
      }
    }
  }
  // The table repeats every H: its last frame must end before the next copy's first one starts.
  const Nanos next_first = add(h, table.front().start);
  if (table.back().end > next_first) {
    bad_table(fmt::format("table[{}].end", table.size() - 1), ns(table.back().end),
              fmt::format("after the next hyperperiod's first frame starts at {}", ns(next_first)));
  }
}

}  // namespace

PbsDispatchResult dispatch_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table,
                                     PbsLauncher& launcher, const PbsDispatchOptions& options) {
  const std::int64_t reps = options.hyperperiods;
  if (reps < 1 || reps > kPbsDispatchMaxHyperperiods) {
    throw InputError("PBS dispatch", "hyperperiods", std::to_string(reps),
                     fmt::format("must be between 1 and {}", kPbsDispatchMaxHyperperiods));
  }
  const PbsJobs jobs(system);
  validate_table(system, jobs, table);
  std::int64_t per_rep = 0;
  for (const PbsFrame& f : table) per_rep += static_cast<std::int64_t>(f.jobs.size());
  std::int64_t records = 0;
  if (__builtin_mul_overflow(per_rep, reps, &records) || records > kPbsDispatchMaxJobs) {
    throw InputError("PBS dispatch", "hyperperiods", std::to_string(reps),
                     fmt::format("{} jobs a hyperperiod would make more than {} job records", per_rep,
                                 kPbsDispatchMaxJobs));
  }
  const Nanos h{jobs.h};
  // The latest time the run computes is below (reps + 1)·H after its start (frames and
  // deadlines of repetition r lie within [r·H, (r+2)·H)); check it once here, before launching
  // anything, so that no check inside the loop can throw halfway through a run.
  const std::int64_t t0 = monotonic_ns();
  std::int64_t span = 0, last = 0;
  if (__builtin_mul_overflow(reps + 1, h.count(), &span) || __builtin_add_overflow(t0, span, &last)) {
    throw InputError("PBS dispatch", "hyperperiods", std::to_string(reps),
                     fmt::format("{} hyperperiods of {} ns pass 2^63 ns on the clock", reps + 1, h.count()));
  }

  PbsDispatchResult result;
  result.run_start_ns = t0;
  result.hyperperiod = h;
  result.frames.reserve(static_cast<std::size_t>(reps) * table.size());
  result.jobs.reserve(static_cast<std::size_t>(records));
  const auto now = [t0] { return Nanos{monotonic_ns() - t0}; };
  Nanos previous_end{0};
  std::vector<Nanos> ends;
  for (std::int64_t r = 0; r < reps; ++r) {
    const Nanos base = mul(r, h);
    for (std::size_t i = 0; i < table.size(); ++i) {
      const PbsFrame& frame = table[i];
      PbsDispatchedFrame df;
      df.table_index = i;
      df.hyperperiod = r;
      df.planned = add(base, frame.start);
      Nanos arrived{0};
      for (const PbsJobRef& j : frame.jobs) {
        arrived = std::max(arrived, add(base, Nanos{jobs.arrival(j.task, j.job)}));
      }
      // Seed §4.1: the batch is synchronised before the next one goes, so a frame that overran
      // holds the next one back under either strategy.
      df.release = options.strategy == PbsDispatchStrategy::time_triggered
                       ? std::max(df.planned, previous_end)
                       : std::max(previous_end, arrived);
      sleep_until(add(Nanos{t0}, df.release).count());
      df.launch = now();
      const std::size_t first_job = result.jobs.size();
      for (const PbsJobRef& j : frame.jobs) {
        PbsDispatchedJob dj;
        dj.job = j;
        dj.hyperperiod = r;
        dj.frame = result.frames.size();
        dj.arrival = add(base, Nanos{jobs.arrival(j.task, j.job)});
        dj.deadline = add(base, Nanos{jobs.due(j.task, j.job)});
        dj.launch = now();
        launcher.launch(j, system.tasks[static_cast<std::size_t>(j.task)]);
        result.jobs.push_back(dj);
      }
      ends.assign(frame.jobs.size(), Nanos{0});
      launcher.wait_frame(ends);
      const Nanos returned = now();
      df.end = Nanos{0};
      for (std::size_t k = 0; k < ends.size(); ++k) {
        PbsDispatchedJob& dj = result.jobs[first_job + k];
        // Compared on the clock itself before subtracting t0, so that a garbage value cannot
        // overflow the subtraction.
        const std::int64_t launched_at = t0 + dj.launch.count(), returned_at = t0 + returned.count();
        if (ends[k] == Nanos{0}) {
          dj.end = returned;
        } else if (ends[k].count() < launched_at || ends[k].count() > returned_at) {
          throw Error(fmt::format(
              "PBS dispatch: the launcher says job {}#{} completed at {} ns (CLOCK_MONOTONIC), outside "
              "its launch at {} ns and wait_frame's return at {} ns",
              system.tasks[static_cast<std::size_t>(dj.job.task)].name, dj.job.job, ends[k].count(),
              launched_at, returned_at));
        } else {
          dj.end = ends[k] - Nanos{t0};
        }
        if (dj.missed()) ++result.deadline_misses;
        df.end = std::max(df.end, dj.end);  // the batch is done when its last job is
      }
      const Nanos next_planned =
          i + 1 < table.size() ? add(base, table[i + 1].start) : add(add(base, h), table.front().start);
      df.overran = df.end > next_planned;
      if (df.overran) ++result.overruns;
      result.max_lateness = std::max(result.max_lateness, df.lateness());
      previous_end = df.end;
      result.frames.push_back(df);
    }
  }
  return result;
}

PbsHostLauncher::PbsHostLauncher(const PbsSystem& system) : _jobs(std::make_shared<PbsJobs>(system)) {}

void PbsHostLauncher::launch(const PbsJobRef& job, const PbsTask&) {
  _running.emplace_back(monotonic_ns(), job.task);
}

void PbsHostLauncher::wait_frame(std::span<Nanos> ends) {
  // As play_pbs_table times a frame: the batch's table completion when the file has one, else C
  // alone (one task) or ceil(C·slowdown) in company, so the frame lasts the model's completion.
  TaskMask set = 0;
  for (const auto& [start, task] : _running) set |= TaskMask{1} << task;
  const bool entry = _jobs->batch_table().count(set) > 0;
  std::int64_t last = 0;
  for (std::size_t i = 0; i < _running.size() && i < ends.size(); ++i) {
    const auto& [start, task] = _running[i];
    const auto t = static_cast<std::size_t>(task);
    const std::int64_t length = entry                    ? _jobs->completion(set)
                                : (set & (set - 1)) == 0 ? _jobs->wcet[t]
                                                         : _jobs->wcet_slowed[t];
    ends[i] = add(Nanos{start}, Nanos{length});
    last = std::max(last, ends[i].count());
  }
  _running.clear();
  sleep_until(last);
}

}  // namespace gpurt

// The PBS table dispatcher (PBS seed §4.1) on the host clock, with a fake launcher whose jobs
// "run" for a set time: both strategies, misses and overruns, and the tables it refuses.
// Frames are a few milliseconds long. Every frame must launch at or after its release (never
// early); how late is bounded in the median over a run's frames, as docs/testing.md does for the
// lock's wake-ups: a dispatcher that sleeps to the wrong time is late on every frame, while a
// loaded 2-core CI machine only now and then holds one frame back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/runtime/pbs_dispatch.hpp"

namespace gpurt {
namespace {

constexpr Nanos kMs{1'000'000};
constexpr Nanos kSlack = 20 * kMs;  // far above timer and scheduling delays, far below a frame

Nanos median_lateness(const PbsDispatchResult& r) {
  std::vector<Nanos> late;
  for (const PbsDispatchedFrame& df : r.frames) late.push_back(df.lateness());
  std::nth_element(late.begin(), late.begin() + static_cast<std::ptrdiff_t>(late.size() / 2), late.end());
  return late[late.size() / 2];
}

// Task a: T = D = 10 ms; task b: T = D = 20 ms; H = 20 ms (a has jobs 0 and 1, b job 0).
PbsSystem two_tasks() {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ms", "platform": "h100",
    "tasks": [
      {"name": "a", "period": 10, "wcet": 1, "blocks": 1, "threads": 64},
      {"name": "b", "period": 20, "wcet": 2, "blocks": 1, "threads": 64}]})");
  return parse_pbs_system(doc, "two.json");
}

PbsFrame frame(Nanos start, Nanos end, std::vector<PbsJobRef> jobs) {
  return PbsFrame{start, end, std::move(jobs)};
}

// Launches return at once; wait_frame sleeps until the frame's longest job is done and reports
// each job's end as its launch + its run time.
class FakeLauncher : public PbsLauncher {
 public:
  struct Launch {
    PbsJobRef job;
    std::int64_t at_ns = 0;  // CLOCK_MONOTONIC
    int frame = 0;           // wait_frame calls before it
  };
  std::vector<Nanos> run_time;                           // per task
  std::map<std::pair<int, std::int64_t>, Nanos> longer;  // (task, job) -> run time
  bool report_ends = true;
  bool bogus_ends = false;  // report a completion before the launch
  std::vector<Launch> launches;
  int waits = 0;

  explicit FakeLauncher(std::vector<Nanos> times) : run_time(std::move(times)) {}

  void launch(const PbsJobRef& job, const PbsTask&) override {
    const std::int64_t now = monotonic_ns();
    launches.push_back({job, now, waits});
    const auto it = longer.find({job.task, job.job});
    const Nanos t = it != longer.end() ? it->second : run_time.at(static_cast<std::size_t>(job.task));
    _pending.push_back(now + t.count());
  }

  void wait_frame(std::span<Nanos> ends) override {
    EXPECT_EQ(ends.size(), _pending.size());
    const std::int64_t done = *std::max_element(_pending.begin(), _pending.end());
    for (std::int64_t now = monotonic_ns(); now < done; now = monotonic_ns()) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(done - now));
    }
    for (std::size_t k = 0; k < ends.size(); ++k) {
      if (bogus_ends) {
        ends[k] = Nanos{1};
      } else if (report_ends) {
        ends[k] = Nanos{_pending[k]};
      }
    }
    _pending.clear();
    ++waits;
  }

 private:
  std::vector<std::int64_t> _pending;
};

TEST(PbsDispatch, TimeTriggeredLaunchesEachFrameAtItsTableTimeInOrder) {
  const PbsSystem s = two_tasks();
  const std::vector<PbsFrame> table = {frame(0 * kMs, 2 * kMs, {{1, 0}, {0, 0}}),
                                       frame(10 * kMs, 11 * kMs, {{0, 1}})};
  FakeLauncher fake({kMs, 2 * kMs});
  const PbsDispatchResult r = dispatch_pbs_table(s, table, fake, {.hyperperiods = 2});
  EXPECT_EQ(r.hyperperiod, 20 * kMs);
  ASSERT_EQ(r.frames.size(), 4u);
  ASSERT_EQ(r.jobs.size(), 6u);
  const Nanos planned[] = {0 * kMs, 10 * kMs, 20 * kMs, 30 * kMs};
  for (std::size_t f = 0; f < 4; ++f) {
    const PbsDispatchedFrame& df = r.frames[f];
    EXPECT_EQ(df.table_index, f % 2);
    EXPECT_EQ(df.hyperperiod, static_cast<std::int64_t>(f / 2));
    EXPECT_EQ(df.planned, planned[f]);
    EXPECT_GE(df.release, df.planned);
    EXPECT_GE(df.launch, df.planned) << "frame " << f << " launched early";
    EXPECT_GE(df.end, df.launch);
    EXPECT_EQ(df.lateness(), df.launch - df.release);
    EXPECT_LE(df.lateness(), r.max_lateness);
  }
  EXPECT_LE(median_lateness(r), kSlack);
  // A timer late on every frame is a bug, a loaded machine is late on some: the least lateness
  // must be small (a sleep to 10 ms past the release passed the median bound).
  Nanos least = r.frames.front().lateness();
  for (const PbsDispatchedFrame& df : r.frames) least = std::min(least, df.lateness());
  EXPECT_LE(least, 5 * kMs);
  // The launcher saw the table's jobs in submission order, one wait per frame, never before the
  // frame's planned time on the run's clock.
  const std::vector<PbsJobRef> order = {{1, 0}, {0, 0}, {0, 1}, {1, 0}, {0, 0}, {0, 1}};
  const int frame_of[] = {0, 0, 1, 2, 2, 3};
  ASSERT_EQ(fake.launches.size(), order.size());
  EXPECT_EQ(fake.waits, 4);
  for (std::size_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(fake.launches[k].job, order[k]) << "launch " << k;
    EXPECT_EQ(fake.launches[k].frame, frame_of[k]) << "launch " << k;
    EXPECT_GE(fake.launches[k].at_ns - r.run_start_ns, planned[frame_of[k]].count()) << "launch " << k;
    EXPECT_EQ(r.jobs[k].job, order[k]);
    EXPECT_EQ(r.jobs[k].frame, static_cast<std::size_t>(frame_of[k]));
  }
  // Repetition 1's b#0 arrives at H and is due at H + 20 ms; a#1 arrives at 10 ms, due at 20 ms.
  EXPECT_EQ(r.jobs[3].hyperperiod, 1);
  EXPECT_EQ(r.jobs[3].arrival, 20 * kMs);
  EXPECT_EQ(r.jobs[3].deadline, 40 * kMs);
  EXPECT_EQ(r.jobs[2].arrival, 10 * kMs);
  EXPECT_EQ(r.jobs[2].deadline, 20 * kMs);
  for (const PbsDispatchedJob& j : r.jobs) {
    const Nanos run = j.job.task == 0 ? kMs : 2 * kMs;
    EXPECT_GE(j.end - j.launch, run);  // the fake's end: its own launch (later) + run time
    EXPECT_LE(j.end, r.frames[j.frame].end);
    EXPECT_EQ(j.response(), j.end - j.arrival);
  }
  // Jobs use at most 2 ms of a frame with 8 ms to spare: only a machine that held the dispatcher
  // or the fake back longer than that can make them late.
  const bool prompt = std::all_of(r.frames.begin(), r.frames.end(), [](const PbsDispatchedFrame& df) {
    return df.lateness() < 5 * kMs && df.end - df.launch < 5 * kMs;
  });
  if (prompt) {
    EXPECT_EQ(r.deadline_misses, 0);
    EXPECT_EQ(r.overruns, 0);
    for (const PbsDispatchedFrame& df : r.frames) EXPECT_EQ(df.release, df.planned);
  }
}

TEST(PbsDispatch, WhenDoneStartsAFrameWhenThePreviousEndsButNotBeforeItsJobsArrive) {
  const PbsSystem s = two_tasks();
  // Jobs run half their table time: when-done reclaims the rest for a#0 (arrived at 0), but a#1
  // must still wait for its arrival at 10 ms, and repetition 1's b#0 for 20 ms.
  const std::vector<PbsFrame> table = {frame(0 * kMs, 2 * kMs, {{1, 0}}), frame(2 * kMs, 3 * kMs, {{0, 0}}),
                                       frame(10 * kMs, 11 * kMs, {{0, 1}})};
  FakeLauncher fake({kMs / 2, kMs});
  const PbsDispatchResult r =
      dispatch_pbs_table(s, table, fake, {.strategy = PbsDispatchStrategy::when_done, .hyperperiods = 2});
  ASSERT_EQ(r.frames.size(), 6u);
  const Nanos arrival[] = {0 * kMs, 0 * kMs, 10 * kMs, 20 * kMs, 20 * kMs, 30 * kMs};
  for (std::size_t f = 0; f < r.frames.size(); ++f) {
    const PbsDispatchedFrame& df = r.frames[f];
    const Nanos previous_end = f == 0 ? Nanos{0} : r.frames[f - 1].end;
    EXPECT_EQ(df.release, std::max(previous_end, arrival[f])) << "frame " << f;
    EXPECT_GE(df.launch, df.release) << "frame " << f << " launched early";
    EXPECT_GE(df.launch, arrival[f]) << "frame " << f << " launched before its jobs arrived";
    EXPECT_EQ(r.jobs[f].arrival, arrival[f]);
  }
  EXPECT_LE(median_lateness(r), kSlack);
  // a#0 had arrived: frame 1 went as soon as frame 0 was done, not at its table time.
  EXPECT_EQ(r.frames[1].release, r.frames[0].end);
  EXPECT_EQ(fake.waits, 6);
}

TEST(PbsDispatch, AJobThatRunsTooLongIsADeadlineMissAndItsFrameAnOverrun) {
  const PbsSystem s = two_tasks();
  const std::vector<PbsFrame> table = {frame(0 * kMs, 2 * kMs, {{0, 0}, {1, 0}}),
                                       frame(10 * kMs, 11 * kMs, {{0, 1}})};
  FakeLauncher fake({kMs, 2 * kMs});
  fake.longer[{0, 0}] = 13 * kMs;  // a#0: due at 10 ms, past frame 1's planned start
  const PbsDispatchResult r = dispatch_pbs_table(s, table, fake);
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_TRUE(r.jobs[0].missed());
  EXPECT_GE(r.jobs[0].response(), 13 * kMs);
  EXPECT_GE(r.deadline_misses, 1);
  EXPECT_TRUE(r.frames[0].overran);
  EXPECT_GE(r.overruns, 1);
  // The batch is synchronised before the next goes (seed §4.1): frame 1 is released late, when
  // frame 0 ends, so its lateness counts only the dispatcher's own delay, not the overrun.
  EXPECT_EQ(r.frames[1].release, r.frames[0].end);
  EXPECT_GT(r.frames[1].release, r.frames[1].planned);
  EXPECT_GE(r.frames[1].launch, r.frames[0].end);
}

TEST(PbsDispatch, JobsWithoutTimesFromTheLauncherEndWithTheirFrame) {
  const PbsSystem s = two_tasks();
  FakeLauncher fake({kMs, 2 * kMs});
  fake.report_ends = false;  // as a launcher that only synchronises the device
  const PbsDispatchResult r = dispatch_pbs_table(s, {frame(0 * kMs, 2 * kMs, {{0, 0}, {1, 0}})}, fake);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].end, r.frames[0].end);
  EXPECT_EQ(r.jobs[1].end, r.frames[0].end);
  EXPECT_GE(r.frames[0].end - r.frames[0].launch, 2 * kMs);
}

TEST(PbsDispatch, ImpossibleLauncherTimesAreAnError) {
  const PbsSystem s = two_tasks();
  FakeLauncher fake({kMs, kMs});
  fake.bogus_ends = true;
  try {
    dispatch_pbs_table(s, {frame(0 * kMs, 2 * kMs, {{0, 0}})}, fake);
    ADD_FAILURE() << "accepted a completion before the launch";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("the launcher says job a#0 completed at 1 ns (CLOCK_MONOTONIC), outside"),
        std::string::npos)
        << e.what();
  }
}

// The host dry run times a frame as the simulator's player does: the batch's table completion
// when the file has one (3 ms for {a, b}), else C alone; deadlines are arrival + D with D < T.
TEST(PbsDispatch, TheHostDryRunTimesFramesAsTheModelAndDeadlinesAreArrivalPlusD) {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ms", "platform": "h100",
    "tasks": [
      {"name": "a", "period": 10, "deadline": 5, "wcet": 1, "blocks": 1, "threads": 64},
      {"name": "b", "period": 20, "wcet": 2, "blocks": 1, "threads": 64}],
    "batches": [{"tasks": ["a", "b"], "completion": 3}]})");
  const PbsSystem s = parse_pbs_system(doc, "batch.json");
  PbsHostLauncher host(s);
  const PbsDispatchResult r = dispatch_pbs_table(
      s, {frame(0 * kMs, 3 * kMs, {{0, 0}, {1, 0}}), frame(10 * kMs, 11 * kMs, {{0, 1}})}, host);
  ASSERT_EQ(r.jobs.size(), 3u);
  const Nanos length[] = {3 * kMs, 3 * kMs, kMs};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_GE(r.jobs[k].end - r.jobs[k].launch, length[k]) << k;
    EXPECT_LT(r.jobs[k].end - r.jobs[k].launch, length[k] + kMs) << k;  // launch() right after
  }
  EXPECT_EQ(r.jobs[0].deadline, 5 * kMs);
  EXPECT_EQ(r.jobs[2].deadline, 15 * kMs);
  EXPECT_EQ(r.frames[0].end, std::max(r.jobs[0].end, r.jobs[1].end));  // the last job's end
}

// The message of the InputError a dispatch throws, checking that nothing was launched.
std::string refusal(const std::vector<PbsFrame>& table, PbsDispatchOptions options = {}) {
  FakeLauncher fake({kMs, kMs});
  try {
    dispatch_pbs_table(two_tasks(), table, fake, options);
  } catch (const InputError& e) {
    EXPECT_TRUE(fake.launches.empty()) << e.what();
    return e.what();
  }
  return "(accepted)";
}

TEST(PbsDispatch, BadTablesAndOptionsAreRefusedBeforeAnythingIsLaunched) {
  const PbsFrame ok = frame(0 * kMs, 2 * kMs, {{0, 0}, {1, 0}});
  EXPECT_EQ(refusal({}), "PBS table: has no frames to dispatch");
  EXPECT_EQ(refusal({frame(0 * kMs, kMs, {})}), "PBS table: table[0].jobs: a frame needs at least one job");
  EXPECT_EQ(refusal({frame(0 * kMs, kMs, {{2, 0}})}),
            "PBS table: table[0].jobs[0].task = 2: no such task (the system has 2)");
  EXPECT_EQ(refusal({frame(0 * kMs, kMs, {{0, 2}})}),
            "PBS table: table[0].jobs[0].job = 2: task a has jobs 0..1 in a hyperperiod");
  EXPECT_EQ(refusal({frame(0 * kMs, kMs, {{1, -1}})}),
            "PBS table: table[0].jobs[0].job = -1: task b has jobs 0..0 in a hyperperiod");
  EXPECT_EQ(refusal({frame(-kMs, kMs, {{0, 0}})}), "PBS table: table[0].start = -1000000 ns: must be >= 0");
  EXPECT_EQ(refusal({frame(20 * kMs, 21 * kMs, {{0, 0}})}),
            "PBS table: table[0].start = 20000000 ns: must be before the hyperperiod's end 20000000 ns");
  EXPECT_EQ(refusal({frame(kMs, kMs, {{0, 0}})}),
            "PBS table: table[0].end = 1000000 ns: must be after its start 1000000 ns");
  EXPECT_EQ(refusal({frame(10 * kMs, 11 * kMs, {{0, 1}}), ok}),
            "PBS table: table[1].start = 0 ns: before frame 0's start 10000000 ns (frames must be in time "
            "order)");
  EXPECT_EQ(refusal({ok, frame(kMs, 3 * kMs, {{0, 1}})}),
            "PBS table: table[1].start = 1000000 ns: overlaps frame 0, which ends at 2000000 ns");
  EXPECT_EQ(refusal({frame(5 * kMs, 6 * kMs, {{0, 0}}), frame(15 * kMs, 26 * kMs, {{0, 1}})}),
            "PBS table: table[1].end = 26000000 ns: after the next hyperperiod's first frame starts at "
            "25000000 ns");
  EXPECT_EQ(refusal({frame(5 * kMs, 6 * kMs, {{0, 1}})}),
            "PBS table: table[0].start = 5000000 ns: before job a#1 arrives at 10000000 ns");
  EXPECT_EQ(refusal({ok}, {.hyperperiods = 0}),
            "PBS dispatch: hyperperiods = 0: must be between 1 and 1000000");
  EXPECT_EQ(refusal({ok}, {.hyperperiods = kPbsDispatchMaxHyperperiods + 1}),
            "PBS dispatch: hyperperiods = 1000001: must be between 1 and 1000000");
  EXPECT_EQ(refusal({ok}, {.hyperperiods = 600'000}),
            "PBS dispatch: hyperperiods = 600000: 2 jobs a hyperperiod would make more than 1000000 job "
            "records");
  // H = 10^15 ns (pbs@1's largest time): 10^4 + 1 hyperperiods pass 2^63 ns. Refused before any
  // launch (a launch here would start a run of 10^19 ns).
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [{"name": "slow", "period": 1e15, "wcet": 1000000, "blocks": 1, "threads": 64}]})");
  const PbsSystem slow = parse_pbs_system(doc, "slow.json");
  ASSERT_EQ(slow.tasks[0].period, Nanos{1'000'000'000'000'000});
  // Launching throws, so a dispatcher that skipped the check fails here rather than sleeping.
  struct NeverLaunch : PbsLauncher {
    void launch(const PbsJobRef&, const PbsTask&) override { throw std::logic_error("launched"); }
    void wait_frame(std::span<Nanos>) override { throw std::logic_error("waited"); }
  } never;
  try {
    dispatch_pbs_table(slow, {frame(Nanos{0}, kMs, {{0, 0}})}, never, {.hyperperiods = 10'000});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "PBS dispatch: hyperperiods = 10000: 10001 hyperperiods of 1000000000000000 ns pass 2^63 ns "
                 "on the clock");
  }
}

}  // namespace
}  // namespace gpurt

// The fast searches against Algorithm 2's brute force on random small Table 1 systems.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include <fmt/format.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"

namespace gpurt {
namespace {

RtgpuSystem random_small_system(Rng& rng) {
  RtgpuTable1Options o;
  o.tasks = static_cast<int>(rng.uniform_int(2, 4));
  o.subtasks = static_cast<int>(rng.uniform_int(1, 3));
  o.physical_sms = static_cast<int>(rng.uniform_int(o.tasks, 8));
  o.utilization = rng.uniform(0.05, 1.2);
  o.two_copies = rng.uniform01() < 0.5;
  o.suspension_scale = rng.uniform(0.5, 4.0);
  o.lower_fraction = rng.uniform01() < 0.5 ? 1.0 : 0.5;
  return generate_rtgpu_table1(rng, o);
}

struct Tally {
  int schedulable = 0, unschedulable = 0;
};

Tally compare(RtgpuMethod method, std::uint64_t seed, int systems) {
  Rng rng(seed);
  Tally tally;
  for (int i = 0; i < systems; ++i) {
    const RtgpuSystem s = random_small_system(rng);
    const RtgpuResult brute = analyse_rtgpu(s, {method, RtgpuSearch::brute});
    const RtgpuResult exact = analyse_rtgpu(s, {method, RtgpuSearch::exact});
    EXPECT_EQ(brute.schedulable, exact.schedulable) << "system " << i << "\n" << to_json(s).dump();
    if (method == RtgpuMethod::rtgpu) {
      // Greedy is exact too under this analysis (see rtgpu_search.cpp).
      const RtgpuResult greedy = analyse_rtgpu(s, {method, RtgpuSearch::greedy});
      EXPECT_EQ(brute.schedulable, greedy.schedulable) << "system " << i;
    }
    if (exact.schedulable) {
      // The allocation exact reports fits on the GPU and passes the analysis on its own.
      std::vector<int> alloc;
      for (const RtgpuTaskResult& t : exact.tasks) alloc.push_back(t.physical_sms);
      EXPECT_LE(std::accumulate(alloc.begin(), alloc.end(), 0), s.platform.sms);
      for (const RtgpuTaskBounds& b : analyse_rtgpu_allocation(s, method, alloc)) EXPECT_TRUE(b.schedulable);
    }
    ++(brute.schedulable ? tally.schedulable : tally.unschedulable);
  }
  return tally;
}

TEST(RtgpuSearch, ExactAndGreedyEqualBruteForceOn600Systems) {
  const Tally t = compare(RtgpuMethod::rtgpu, 11, 600);
  // Both outcomes must be well represented, or the comparison proves little (507 and 93 since a
  // zero-length copy is no bus request; 100 or more of each before).
  EXPECT_GE(t.schedulable, 80);
  EXPECT_GE(t.unschedulable, 80);
}

TEST(RtgpuSearch, StgmExactEqualsBruteForceOn500Systems) {
  const Tally t = compare(RtgpuMethod::stgm, 12, 500);
  EXPECT_GE(t.schedulable, 50);
  EXPECT_GE(t.unschedulable, 50);
}

TEST(RtgpuSearch, BruteForceRefusesHugeGrids) {
  RtgpuTable1Options o;
  o.tasks = 20;
  o.physical_sms = 132;
  Rng rng(1);
  const RtgpuSystem s = generate_rtgpu_table1(rng, o);
  EXPECT_THROW(analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::brute}), Error);
  // The exact search handles the same system (one least count per task, binary search).
  const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
  EXPECT_LE(r.allocations_tried, 20 * 10);
}

// Every search stops after RtgpuOptions::analysis_limit task analyses (STGM's exact depth-first
// search is exponential in the tasks): an error naming the limit, never a hang, and the same
// system within the limit gets its answer.
TEST(RtgpuSearch, AnySearchStopsAtItsAnalysisLimit) {
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    const RtgpuSystem s = random_small_system(rng);
    RtgpuOptions o{RtgpuMethod::stgm, RtgpuSearch::exact};
    const RtgpuResult full = analyse_rtgpu(s, o);
    if (full.allocations_tried < 3) continue;
    o.analysis_limit = full.allocations_tried;  // exactly enough
    EXPECT_EQ(analyse_rtgpu(s, o).schedulable, full.schedulable);
    o.analysis_limit = full.allocations_tried - 1;
    try {
      (void)analyse_rtgpu(s, o);
      ADD_FAILURE() << "system " << i << " ran " << full.allocations_tried << " analyses under a limit of "
                    << o.analysis_limit;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("stopped after {} task analyses", o.analysis_limit)),
                std::string::npos)
          << e.what();
    }
    return;
  }
  FAIL() << "no system needed three analyses";
}

// A task without GPU segments (m_i = 1) gets no SM (audit, 2026-11-27): with one SM, a CPU-only
// task A and a GPU task B are schedulable, B on the one SM (it was "2 tasks but only 1 SMs").
TEST(RtgpuSearch, ATaskWithoutGpuSegmentsGetsNoSm) {
  const RtgpuSystem s = parse_rtgpu_system(Json::parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "us",
      "platform": {"preset": "gtx1080ti", "sms": 1}, "tasks": [
        {"name": "A", "period": 100, "cpu": [[1, 2]], "copy": [], "gpu": []},
        {"name": "B", "period": 200, "cpu": [[2, 5], [2, 2]], "copy": [[3, 3], [0, 0]],
         "gpu": [{"work": [40, 44], "overhead": 1, "alpha": 1.7}]}]})"),
                                           "cpu-only.json");
  for (RtgpuSearch search : {RtgpuSearch::brute, RtgpuSearch::greedy, RtgpuSearch::exact}) {
    const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::rtgpu, search});
    EXPECT_TRUE(r.schedulable) << to_string(search);
    EXPECT_EQ(r.tasks[0].physical_sms, 0);
    EXPECT_EQ(r.tasks[1].physical_sms, 1);
    // A, highest priority (deadline-monotonic), runs its CPU segment alone: R = CL^ = 2 us.
    EXPECT_EQ(r.tasks[0].bounds.response, Nanos{2'000});
  }
  const std::vector<int> alloc = {0, 1};
  for (const RtgpuTaskBounds& b : analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, alloc))
    EXPECT_TRUE(b.schedulable);
  EXPECT_THROW(analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, std::vector<int>{1, 0}), Error);
}

// Under STGM more SMs for a GPU task shorten its busy-waiting, which a lower-priority CPU-only
// task waits through (review, 2026-11-27): A on 1 SM busy-waits 2 + 50 us (> D_A = 40), and B's
// 10 us end at 62 > 60; on 2 SMs A needs 27 and B 37. Every search gives A 2 SMs and B none
// (greedy stopped at the CPU-only task that missed).
TEST(RtgpuSearch, StgmGivesSmsAboveAMissingCpuOnlyTask) {
  const RtgpuSystem s = parse_rtgpu_system(Json::parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "us",
      "platform": {"preset": "gtx1080ti", "sms": 3}, "tasks": [
        {"name": "A", "period": 100, "deadline": 40, "cpu": [[1, 1], [1, 1]], "copy": [[0, 0], [0, 0]],
         "gpu": [{"work": [100, 100], "overhead": 0, "alpha": 1}]},
        {"name": "B", "period": 60, "cpu": [[10, 10]], "copy": [], "gpu": []}]})"),
                                           "stgm.json");
  for (RtgpuSearch search : {RtgpuSearch::brute, RtgpuSearch::greedy, RtgpuSearch::exact}) {
    const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::stgm, search});
    EXPECT_TRUE(r.schedulable) << to_string(search);
    EXPECT_EQ(r.tasks[0].physical_sms, 2) << to_string(search);
    EXPECT_EQ(r.tasks[1].physical_sms, 0) << to_string(search);
  }
}

// Two CPU-only tasks of C = 6 ms, T = D = 10 ms on 2 SMs: B misses (6 + 6 = 12 > 10).
RtgpuSystem two_cpu_only_tasks() {
  return parse_rtgpu_system(Json::parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
      "platform": {"preset": "gtx1080ti", "sms": 2}, "tasks": [
        {"name": "A", "period": 10, "priority": 1, "cpu": [[6, 6]], "copy": [], "gpu": []},
        {"name": "B", "period": 10, "priority": 2, "cpu": [[6, 6]], "copy": [], "gpu": []}]})"),
                            "cpu.json");
}

// No task uses the GPU and one misses: no SM can help, and every search says so at once (the
// greedy search of STGM used to hand SMs to the GPU tasks, of which there are none, forever).
// B: R = 6 + ceil(R/10)·6: 6 -> 12 > 10.
TEST(RtgpuSearch, EverySearchAnswersAtOnceWhenNoTaskUsesTheGpu) {
  const RtgpuSystem s = two_cpu_only_tasks();
  for (RtgpuMethod method : {RtgpuMethod::rtgpu, RtgpuMethod::stgm}) {
    for (RtgpuSearch search : {RtgpuSearch::brute, RtgpuSearch::greedy, RtgpuSearch::exact}) {
      RtgpuOptions o{method, search};
      o.analysis_limit = 100;
      const RtgpuResult r = analyse_rtgpu(s, o);
      EXPECT_FALSE(r.schedulable) << to_string(method) << " " << to_string(search);
      EXPECT_LE(r.allocations_tried, 10) << to_string(method) << " " << to_string(search);
      EXPECT_EQ(r.tasks[1].physical_sms, 0);
    }
  }
}

// The analysis limit's message names the search that ran out (it named the exact search for
// every search, and for methods that run none).
TEST(RtgpuSearch, TheLimitNamesTheSearchThatRanOut) {
  const RtgpuSystem s = two_cpu_only_tasks();
  const auto message = [&](RtgpuMethod m, RtgpuSearch search) {
    RtgpuOptions o{m, search};
    o.analysis_limit = 1;
    try {
      (void)analyse_rtgpu(s, o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(RtgpuMethod::stgm, RtgpuSearch::greedy).find("the greedy search of stgm stopped after 1"),
            std::string::npos)
      << message(RtgpuMethod::stgm, RtgpuSearch::greedy);
  EXPECT_NE(message(RtgpuMethod::stgm, RtgpuSearch::exact).find("the exact search of stgm stopped after 1"),
            std::string::npos);
  EXPECT_NE(message(RtgpuMethod::self_suspension, RtgpuSearch::exact)
                .find("the analysis of self-suspension stopped after 1"),
            std::string::npos)
      << message(RtgpuMethod::self_suspension, RtgpuSearch::exact);
}

// The searches agree with brute force when CPU-only tasks take part: random small systems with
// a CPU-only task added at the highest or the lowest priority.
TEST(RtgpuSearch, SearchesAgreeWithCpuOnlyTasks) {
  Rng rng(20261127);
  int schedulable = 0;
  for (int i = 0; i < 300; ++i) {
    RtgpuSystem s = random_small_system(rng);
    RtgpuTask cpu_only;
    cpu_only.name = "cpu";
    cpu_only.period = s.tasks.front().period;
    cpu_only.deadline = cpu_only.period;
    const auto c = Nanos{
        static_cast<std::int64_t>(static_cast<double>(cpu_only.period.count()) * rng.uniform(0.01, 0.2))};
    cpu_only.cpu = {TimeBounds{c / 2, c}};
    const bool first = rng.uniform01() < 0.5;
    for (RtgpuTask& t : s.tasks) t.priority += first ? 1 : 0;
    cpu_only.priority = first ? 1 : static_cast<int>(s.tasks.size()) + 1;
    s.tasks.push_back(cpu_only);
    const RtgpuResult brute = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::brute});
    const RtgpuResult exact = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
    const RtgpuResult greedy = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::greedy});
    EXPECT_EQ(brute.schedulable, exact.schedulable) << "system " << i;
    EXPECT_EQ(brute.schedulable, greedy.schedulable) << "system " << i;
    EXPECT_EQ(exact.tasks.back().physical_sms, 0);
    schedulable += exact.schedulable ? 1 : 0;
    EXPECT_EQ(analyse_rtgpu(s, {RtgpuMethod::stgm, RtgpuSearch::brute}).schedulable,
              analyse_rtgpu(s, {RtgpuMethod::stgm, RtgpuSearch::exact}).schedulable)
        << "STGM, system " << i;
  }
  EXPECT_GT(schedulable, 30);
  EXPECT_LT(schedulable, 270);
}

TEST(RtgpuSearch, MoreTasksThanSmsIsUnschedulable) {
  RtgpuTable1Options o;
  o.tasks = 3;
  o.physical_sms = 2;
  o.utilization = 0.01;
  Rng rng(5);
  const RtgpuSystem s = generate_rtgpu_table1(rng, o);
  for (RtgpuSearch search : {RtgpuSearch::brute, RtgpuSearch::greedy, RtgpuSearch::exact}) {
    EXPECT_FALSE(analyse_rtgpu(s, {RtgpuMethod::rtgpu, search}).schedulable);
  }
}

}  // namespace
}  // namespace gpurt

namespace gpurt {
namespace {

// Below the first task (in priority order) that misses, no task is analysable: its interference
// terms rest on the failing task's response bound. Some of those tasks pass the raw per-task
// analysis of the same allocation, so the rule changes verdicts (it is not vacuous).
TEST(RtgpuSearch, TasksBelowAMissingTaskAreNotAnalysable) {
  Rng rng(5);
  int changed = 0;
  for (int i = 0; i < 400; ++i) {
    const RtgpuSystem s = random_small_system(rng);
    const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
    std::vector<int> alloc;
    for (const RtgpuTaskResult& t : r.tasks) alloc.push_back(t.physical_sms);
    const std::vector<RtgpuTaskBounds> raw = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, alloc);
    bool missed = false;
    for (std::size_t idx : priority_order(s)) {
      const RtgpuTaskResult& t = r.tasks[idx];
      EXPECT_EQ(t.analysable, !missed) << "system " << i << " task " << t.name;
      if (missed) {
        EXPECT_FALSE(t.bounds.schedulable);
        EXPECT_NE(t.bounds.reason.find("not analysable"), std::string::npos) << t.bounds.reason;
        changed += raw[idx].schedulable ? 1 : 0;
      }
      missed = missed || !t.bounds.schedulable;
    }
    if (r.schedulable) {
      for (const RtgpuTaskResult& t : r.tasks) EXPECT_TRUE(t.analysable);
    }
  }
  EXPECT_GT(changed, 0);
}

}  // namespace
}  // namespace gpurt

// GPUSched's budgets (issue 17): the vertex cap, the memory it implies and the time limit stop
// every search variant with complete = false and the reason, never with a false verdict.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/error.hpp"
#include "pbs_helpers.hpp"

namespace gpurt {
namespace {

// n tasks of equal period 1000 ns, C = 10 ns, one 32-thread block each, on an H100: every
// subset of the ready jobs is eligible (2^n batches per vertex), the worst case of §6.2.
PbsSystem equal_periods(int n) {
  Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100", "tasks": []})");
  for (int i = 0; i < n; ++i) {
    doc["tasks"].push_back(Json{
        {"name", fmt::format("k{}", i)}, {"period", 1000}, {"wcet", 10}, {"blocks", 1}, {"threads", 32}});
  }
  return parse_pbs_system(doc, "equal.json");
}

TEST(PbsLimits, VertexCapStopsExploreAllWithoutProvingTheEarliestTable) {
  const PbsSystem s = test::figure1();
  const PbsResult first = analyse_pbs(s);  // stops at the first schedule
  const PbsResult whole = analyse_pbs(s, {.explore_all = true, .whole_graph = true});
  ASSERT_TRUE(first.complete && whole.complete && first.schedulable);
  ASSERT_GT(whole.stats.vertices_created, first.stats.vertices_created + 2);
  // Explore-all walks the same order, so with this cap it has found a schedule but not the
  // whole graph: the verdict is known, the earliest-ending table is not.
  const PbsResult capped = analyse_pbs(
      s, {.explore_all = true, .whole_graph = true, .max_vertices = first.stats.vertices_created + 1});
  EXPECT_TRUE(capped.schedulable);
  EXPECT_FALSE(capped.complete);
  EXPECT_EQ(capped.stopped_by, "max-vertices");
  // The same cap is enough for the first-schedule search.
  const PbsResult verdict = analyse_pbs(s, {.max_vertices = first.stats.vertices_created + 1});
  EXPECT_TRUE(verdict.complete);
  EXPECT_TRUE(verdict.stopped_by.empty());
}

TEST(PbsLimits, EveryVariantStopsAtTheCap) {
  const PbsSystem s = equal_periods(6);
  for (PbsMerge merge : {PbsMerge::dominated, PbsMerge::identical, PbsMerge::none}) {
    const PbsResult r =
        analyse_pbs(s, {.explore_all = true, .whole_graph = true, .max_vertices = 500, .merge = merge});
    EXPECT_FALSE(r.complete) << static_cast<int>(merge);
    EXPECT_EQ(r.stopped_by, "max-vertices");
    EXPECT_LE(r.stats.vertices_created, 501u) << static_cast<int>(merge);
  }
  const PbsResult plain = analyse_pbs(s, {.policy = PbsPolicy::gpusched_reference, .max_vertices = 20});
  EXPECT_FALSE(plain.complete);
  EXPECT_EQ(plain.stopped_by, "max-vertices");
}

// 32 ready jobs that all fit: listing the eligible batches of v0 alone would take 2^32 sets.
// The time limit stops it inside that listing, and the memory it may hold is bounded by the
// vertex cap (256 bytes per vertex).
TEST(PbsLimits, TimeAndMemoryBudgetsStopA32TaskSet) {
  const PbsSystem s = equal_periods(32);
  const PbsResult timed = analyse_pbs(s, {.max_seconds = 0.2});
  EXPECT_FALSE(timed.complete);
  EXPECT_EQ(timed.stopped_by, "max-seconds");
  EXPECT_LT(timed.stats.seconds, 5.0);
  const PbsResult small = analyse_pbs(s, {.max_vertices = 1000});
  EXPECT_FALSE(small.complete);
  EXPECT_EQ(small.stopped_by, "max-vertices");  // memory: 256 kB allowed
  // The estimate at the stop: just past the 256 kB allowed (checked every 256 allocator runs).
  EXPECT_GT(small.stats.peak_memory_bytes, 256'000u);
  EXPECT_LT(small.stats.peak_memory_bytes, 2 * 256'000u);
}

}  // namespace
}  // namespace gpurt

namespace gpurt {
namespace {

// The EDF baselines keep a frame per batch and the jobs' times: a default cap on the jobs of a
// hyperperiod (10^6, --max-jobs) refuses a system before it fills the memory. Periods 1000 and
// 10 ns: 1 + 100 jobs in H = 1000 ns.
TEST(PbsLimits, EdfBaselinesRefuseMoreJobsThanMaxJobs) {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100", "tasks": [
      {"name": "slow", "period": 1000, "wcet": 1, "blocks": 1, "threads": 32},
      {"name": "fast", "period": 10, "wcet": 1, "blocks": 1, "threads": 32}]})");
  const PbsSystem s = parse_pbs_system(doc, "jobs.json");
  for (PbsPolicy policy : {PbsPolicy::edf_serial, PbsPolicy::edf_parallel}) {
    EXPECT_TRUE(analyse_pbs(s, {.policy = policy, .max_jobs = 101}).schedulable);
    try {
      (void)analyse_pbs(s, {.policy = policy, .max_jobs = 100});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the hyperperiod holds 101 jobs, more than --max-jobs 100"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gpurt

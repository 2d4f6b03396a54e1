// PBS seed examples: Example 2.1 (the oracle), Figures 1/2 (EDFserial, EDFParallel, GPUSched)
// and Example 3.12 (merge and split).
#include <gtest/gtest.h>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/analysis/pbs_model.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/gen/pbs_gen.hpp"
#include "pbs_helpers.hpp"

namespace gpurt {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Example 2.1: two SMs of 256 threads; J1 = 4 blocks × 64 threads, J2 = 1 block × 192.
// <J1, J2>: J1's blocks go round robin, two per SM (128 threads each), leaving 128 < 192 free
// on each SM, so J2 cannot start. <J2, J1>: J2 takes 192 on SM 0; J1's blocks then go to
// SM 1, SM 0 (192 + 64 = 256), SM 1, and SM 1 again (SM 0 is full): all start.
TEST(PbsSeed, Example2_1OracleIsTheSimulatorsAllocator) {
  Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "us", "tasks": [
      {"name": "J1", "period": 10, "wcet": 1, "blocks": 4, "threads": 64},
      {"name": "J2", "period": 10, "wcet": 1, "blocks": 1, "threads": 192}]})");
  doc["platform"] = test::two_sm_platform();
  const PbsSystem s = parse_pbs_system(doc, "ex21.json");
  PbsOracle oracle(s);
  EXPECT_FALSE(oracle.eligible(std::vector<int>{0, 1}));
  EXPECT_TRUE(oracle.eligible(std::vector<int>{1, 0}));
  EXPECT_TRUE(oracle.eligible(std::vector<int>{0}));
  EXPECT_EQ(oracle.simulations(), 3u);
  EXPECT_FALSE(oracle.eligible(std::vector<int>{0, 1}));  // cached
  EXPECT_EQ(oracle.simulations(), 3u);
  EXPECT_EQ(oracle.queries(), 4u);
  // Every set with an eligible order, one witness each: {J1}, {J2}, {J1, J2} via <J2, J1>.
  const auto& subsets = oracle.eligible_subsets(0b11);
  ASSERT_EQ(subsets.size(), 3u);
  EXPECT_EQ(subsets[2].set, 0b11u);
  EXPECT_EQ(subsets[2].order, (std::vector<int>{1, 0}));
}

TEST(PbsSeed, Figure2aEdfSerialMissesJ7) {
  // t=0: J1 [0,1]; J6 (d 5) [1,4]; J2 (a 4, d 8) [4,5]; J10 and J7 both due 10, J10 arrived
  // first: J10 [5,8]; J7 [8,11] > 10: the first miss is J7 = task t2's job 1.
  const PbsResult r = analyse_pbs(test::figure1(), {.policy = PbsPolicy::edf_serial});
  EXPECT_FALSE(r.schedulable);
  ASSERT_TRUE(r.first_miss.has_value());
  EXPECT_EQ(*r.first_miss, (PbsJobRef{1, 1}));
  ASSERT_EQ(r.table.size(), 5u);
  EXPECT_EQ(r.table[3].jobs, (std::vector<PbsJobRef>{{2, 0}}));
  EXPECT_EQ(r.table[4].start.count(), 8 * kMs);
  EXPECT_EQ(r.table[4].end.count(), 11 * kMs);
}

// The table checker refuses what PBS cannot run: EDFserial's table (J7 ends at 11 > 10) misses
// a deadline, and a job put in a frame before it arrives (J2, due at 4, with J6 at 1) is early.
TEST(PbsSeed, TableCheckerRefusesMissesAndEarlyJobs) {
  const PbsSystem s = test::figure1();
  const PbsResult serial = analyse_pbs(s, {.policy = PbsPolicy::edf_serial});
  ASSERT_EQ(serial.table.size(), 5u);
  EXPECT_NE(check_pbs_table(s, serial.table).find("frame 4: job 1 of task 1 misses its deadline"),
            std::string::npos)
      << check_pbs_table(s, serial.table);
  std::vector<PbsFrame> early = serial.table;
  ASSERT_EQ(early[1].jobs, (std::vector<PbsJobRef>{{1, 0}}));
  early[1].jobs.push_back({0, 1});
  EXPECT_EQ(check_pbs_table(s, early), "frame 1: a job has not arrived");
}

TEST(PbsSeed, Figure2bEdfParallelMissesSeveral) {
  // Every ready job joins: {J1,J6,J10} [0,6] (J1 due 4, J6 due 5 miss); {J2,J7} [6,10] (J2 due
  // 8 misses); {J3,J8,J11} [10,16] (J3 due 12, J8 due 15 miss); {J4,J9} [16,20] (J4 due 16
  // misses); J5 [20,21] (due 20, misses): 7 misses, the first J1.
  const PbsResult r = analyse_pbs(test::figure1(), {.policy = PbsPolicy::edf_parallel});
  EXPECT_FALSE(r.schedulable);
  EXPECT_EQ(r.misses.size(), 7u);
  EXPECT_EQ(*r.first_miss, (PbsJobRef{0, 0}));
  ASSERT_EQ(r.table.size(), 1u);
  EXPECT_EQ(r.table[0].end.count(), 6 * kMs);
  EXPECT_EQ(r.table[0].jobs, (std::vector<PbsJobRef>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(PbsSeed, Figure2GpuSchedFindsASchedule) {
  const PbsSystem s = test::figure1();
  const PbsResult fast = analyse_pbs(s, {.policy = PbsPolicy::gpusched});
  ASSERT_TRUE(fast.schedulable);
  EXPECT_TRUE(fast.complete);
  EXPECT_EQ(fast.hyperperiod.count(), 20 * kMs);
  EXPECT_EQ(check_pbs_table(s, fast.table), "");
  EXPECT_EQ(fast.table.front().start.count(), 0);
  const PbsResult plain = analyse_pbs(s, {.policy = PbsPolicy::gpusched_reference});
  EXPECT_TRUE(plain.schedulable);
  EXPECT_EQ(check_pbs_table(s, plain.table), "");
  EXPECT_GT(plain.stats.vertices_created, fast.stats.vertices_created);
  // A vertex cap below the 9 frames the schedule needs: no verdict, and it says so.
  const PbsResult capped = analyse_pbs(s, {.policy = PbsPolicy::gpusched, .max_vertices = 3});
  EXPECT_FALSE(capped.schedulable);
  EXPECT_FALSE(capped.complete);
  EXPECT_TRUE(capped.table.empty());
  // A table that breaks the model is caught: J1 cannot end at 2 ms.
  std::vector<PbsFrame> bad = fast.table;
  bad[0].end = Nanos{2 * kMs};
  EXPECT_NE(check_pbs_table(s, bad), "");
}

// Example 3.12 as jobs: J1 (a 0, C 3), J2 (a 0, C 4), J3 (a 6, C 5), J4 (a 6, C 4),
// J5 (a 17, C 6), J6 (a 18, C 5), one task each; completions {J1,J2} = 10, {J3,J4} = 8,
// {J5,J6} = 6. J6 is due at 25, the others at 100.
// v2 = (t 7, exe {J1,J2}) via J1, J2; v1 = (t 10, same exe) via the parallel batch; ready
// {J3, J4} in both, so v1 <= v2 with Δ = 3. Every path from v2 fails: J3/J4 end at 15 or 16,
// the GPU idles to 17 (FastForward), J5 runs alone [17,23] and J6 ends at 28 > 25. From v1 the
// jobs end at 19 with J5 and J6 both ready (the anomaly of Lemma 3.10: 16 + 3 > 17), so the
// domination breaks and v1 is split off and explored: J6 [19,24], J5 [24,30] meets every
// deadline. (The seed's walk-through stops at v12 = 25; {J3,J4} from v1 then {J5,J6} ends at
// 24, a path its Figure 3 does not draw.)
PbsSystem example_3_12_system() {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [
      {"name": "J1", "period": 100, "wcet": 3, "blocks": 1, "threads": 64},
      {"name": "J2", "period": 100, "wcet": 4, "blocks": 1, "threads": 64},
      {"name": "J3", "period": 100, "wcet": 5, "blocks": 1, "threads": 64},
      {"name": "J4", "period": 100, "wcet": 4, "blocks": 1, "threads": 64},
      {"name": "J5", "period": 100, "wcet": 6, "blocks": 1, "threads": 64},
      {"name": "J6", "period": 100, "wcet": 5, "blocks": 1, "threads": 64}],
    "batches": [{"tasks": ["J1", "J2"], "completion": 10}, {"tasks": ["J3", "J4"], "completion": 8},
                {"tasks": ["J5", "J6"], "completion": 6}]})");
  return parse_pbs_system(doc, "ex312.json");
}

PbsJobs example_3_12_jobs(const PbsSystem& s) {
  return PbsJobs(s, {{0}, {0}, {6}, {6}, {17}, {18}}, {{100}, {100}, {100}, {100}, {100}, {25}});
}

TEST(PbsSeed, Example3_12MergeAndSplit) {
  const PbsSystem s = example_3_12_system();
  const PbsJobs jobs = example_3_12_jobs(s);
  const PbsResult r = analyse_pbs_jobs(s, jobs, {.policy = PbsPolicy::gpusched});
  ASSERT_TRUE(r.schedulable);
  // Depth first, most urgent first: J1@3, J2@7 (v2); from v2 J3@12, J4@16 -> idle to 17, J5@23,
  // J6 would end 28 (pruned); {J3,J4}@15 and J4@11, J3@16 both idle to 17 and meet the explored
  // (17, exe {J1..J4}) vertex: 2 merges. v2's slack is 0 (J3 then J4 ends at 16, one before the
  // arrival at 17), so v1 = {J1,J2}@10 is split off and explored (split 1); its J3@15 meets the
  // explored J3@12 (same exe and ready) 3 later, beyond that vertex's slack of 0, and is split
  // off too (split 2): J4@19, J6@24, J5@30.
  EXPECT_EQ(r.stats.vertices_created, 14u);
  EXPECT_EQ(r.stats.vertices_merged, 2u);
  EXPECT_EQ(r.stats.vertices_split, 2u);
  EXPECT_EQ(r.stats.vertices_pruned, 1u);
  EXPECT_EQ(r.stats.fast_forwards, 3u);
  EXPECT_EQ(r.stats.edges, 14u);
  ASSERT_EQ(r.table.size(), 5u);
  EXPECT_EQ(r.table[0].end.count(), 10);
  EXPECT_EQ(r.table[0].jobs.size(), 2u);
  EXPECT_EQ(r.table[3].jobs, (std::vector<PbsJobRef>{{5, 0}}));
  EXPECT_EQ(r.table[4].end.count(), 30);

  // Exploring everything, both searches agree that the earliest end is 24 ({J3,J4}@18 from v1,
  // then {J5,J6}@24) and that no schedule starts with J1, J2 in sequence.
  const PbsResult all = analyse_pbs_jobs(s, jobs, {.policy = PbsPolicy::gpusched, .explore_all = true});
  const PbsResult plain = analyse_pbs_jobs(s, jobs, {.policy = PbsPolicy::gpusched_reference});
  ASSERT_TRUE(all.schedulable);
  ASSERT_TRUE(plain.schedulable);
  EXPECT_EQ(all.table.back().end.count(), 24);
  EXPECT_EQ(plain.table.back().end.count(), 24);
  EXPECT_EQ(plain.table.front().end.count(), 10);
}

// Pruning (Algorithm 1: a job that ends after its deadline cuts the path) at the nanosecond:
// a job ending exactly at its deadline meets it; one ending a nanosecond later misses.
// t1 (C 9, D 9) alone is schedulable; with C 10 it is not. With t2 (C 2, T = D = 20) beside
// it, {t1, t2} co-running in 10 ns would meet both deadlines only if D1 were 10, so GPUSched
// must run t1 alone first ([0, 9]), then t2 ([9, 11]).
PbsSystem deadline_system(int c1) {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [
      {"name": "t1", "period": 20, "deadline": 9, "wcet": )" +
                               std::to_string(c1) + R"(, "blocks": 1, "threads": 64},
      {"name": "t2", "period": 20, "wcet": 2, "blocks": 1, "threads": 64}],
    "batches": [{"tasks": ["t1", "t2"], "completion": 10}]})");
  return parse_pbs_system(doc, "deadline.json");
}

TEST(PbsSeed, AJobEndingExactlyAtItsDeadlineMeetsIt) {
  const PbsResult met = analyse_pbs(deadline_system(9), {.policy = PbsPolicy::gpusched});
  ASSERT_TRUE(met.schedulable);
  ASSERT_EQ(met.table.size(), 2u);
  EXPECT_EQ(met.table[0].jobs, (std::vector<PbsJobRef>{{0, 0}}));
  EXPECT_EQ(met.table[0].end.count(), 9);
  EXPECT_EQ(met.table[1].end.count(), 11);
  const PbsResult late = analyse_pbs(deadline_system(10), {.policy = PbsPolicy::gpusched});
  EXPECT_FALSE(late.schedulable);
  EXPECT_TRUE(late.complete);
}

// Reduction 7's tail bound on an 8-task set of the benchmark (perf_pbs: U = 1, large slowdowns,
// set 28 of seed 2034): with it, the earliest-ending table is proven within 10,000 vertices (84
// at the time of writing); without it the search passed 1,000,000 without a proof. The table is
// valid and no later than the first schedule found.
TEST(PbsExploreAll, TailBoundProvesAnEightTaskTableWithinTenThousandVertices) {
  const Rng root(2026 + 8);
  Rng rng = root.fork(28);
  const auto s = generate_pbs_system(rng, {.tasks = 8, .utilization = 1.0, .slowdown = PbsSlowdown::large});
  ASSERT_TRUE(s.has_value());
  const PbsResult all = analyse_pbs(*s, {.explore_all = true, .max_vertices = 10'000});
  ASSERT_TRUE(all.complete) << all.stats.vertices_created;
  ASSERT_TRUE(all.schedulable);
  EXPECT_EQ(check_pbs_table(*s, all.table), "");
  const PbsResult first = analyse_pbs(*s, {});
  ASSERT_TRUE(first.schedulable);
  EXPECT_LE(all.table.back().end, first.table.back().end);
  EXPECT_GT(all.stats.vertices_bounded, 0u);
}

}  // namespace
}  // namespace gpurt

namespace gpurt {
namespace {

PbsSystem two_sm_system(const std::string& tasks, const std::string& unit = "us") {
  Json doc =
      Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": ")" + unit + R"(", "tasks": )" + tasks + "}");
  doc["platform"] = test::two_sm_platform();
  return parse_pbs_system(doc, "two-sm.json");
}

// The allocator's round-robin pointer carries from one job to the next (Example 2.1's rule: the
// simulator places a batch's blocks in one pass). A = 1 × 64 goes to SM 0; B = 3 × 96 continues at
// SM 1: SM 1, SM 0 (160), SM 1 (192); C = 1 × 160 then finds 96 and 64 free: not eligible. Were the
// pointer reset for each job, B would fill SM 0, SM 1, SM 0 (256) and C fit on SM 1.
TEST(PbsOracleRules, TheRoundRobinPointerCarriesFromOneJobToTheNext) {
  const PbsSystem s = two_sm_system(R"([
      {"name": "A", "period": 10, "wcet": 1, "blocks": 1, "threads": 64},
      {"name": "B", "period": 10, "wcet": 1, "blocks": 3, "threads": 96},
      {"name": "C", "period": 10, "wcet": 1, "blocks": 1, "threads": 160}])");
  PbsOracle oracle(s);
  EXPECT_FALSE(oracle.eligible(std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(oracle.eligible(std::vector<int>{0, 1}));
  // C first: C on SM 0 (160), A on SM 1, B on SM 0 (256), SM 1 (160), SM 1 (256): all start.
  EXPECT_TRUE(oracle.eligible(std::vector<int>{2, 0, 1}));
}

// EDFParallel adds ready jobs in deadline order and skips one that would break eligibility, then
// goes on with the later ones. J1 (4 × 64, C 30, D 40) takes 128 threads of each SM; J2 (1 × 192,
// C 25, D 55) fits nowhere and is skipped; J3 (1 × 64, C 28, D 58) joins: {J1, J3} [0, 30], then
// J2 alone [30, 55], exactly its deadline: schedulable. Stopping at J2 would run J1 alone [0, 30]
// and {J2, J3} [30, 58]: J2 late.
TEST(PbsBaselineRules, EdfParallelSkipsAJobThatDoesNotFitAndTakesLaterOnes) {
  const PbsSystem s = two_sm_system(R"([
      {"name": "J1", "period": 100, "deadline": 40, "wcet": 30, "blocks": 4, "threads": 64},
      {"name": "J2", "period": 100, "deadline": 55, "wcet": 25, "blocks": 1, "threads": 192},
      {"name": "J3", "period": 100, "deadline": 58, "wcet": 28, "blocks": 1, "threads": 64}])");
  const PbsResult r = analyse_pbs(s, {.policy = PbsPolicy::edf_parallel});
  EXPECT_TRUE(r.schedulable);
  ASSERT_EQ(r.table.size(), 2u);
  EXPECT_EQ(r.table[0].jobs, (std::vector<PbsJobRef>{{0, 0}, {2, 0}}));
  EXPECT_EQ(r.table[0].end.count(), 30'000);
  EXPECT_EQ(r.table[1].jobs, (std::vector<PbsJobRef>{{1, 0}}));
  EXPECT_EQ(r.table[1].start.count(), 30'000);
  EXPECT_EQ(r.table[1].end.count(), 55'000);
}

// §2.5: a job alone takes its WCET C; in company ceil(C · s), s the decimal the file writes
// (100 × 1.1 is 110.00000000000001 in binary floating point, but 110 exactly), and a product
// just above an integer rounds up: 5 × 1.0000001 = 5.0000005 is 6 ns (a 1e-6 ns snap made it 5,
// and two such jobs with D = 5 ns "met" their deadline in one batch).
TEST(PbsModelRules, AloneAJobTakesCInCompanyCeilOfCTimesS) {
  const PbsSystem alone = two_sm_system(R"([
      {"name": "T", "period": 100, "deadline": 40, "wcet": 30, "blocks": 1, "threads": 64, "slowdown": 1.5}])");
  const PbsResult r = analyse_pbs(alone, {.policy = PbsPolicy::edf_serial});
  EXPECT_TRUE(r.schedulable);  // 30 <= 40; 45 would miss
  ASSERT_EQ(r.table.size(), 1u);
  EXPECT_EQ(r.table[0].end.count(), 30'000);
  const PbsJobs quarter(two_sm_system(R"([
      {"name": "a", "period": 100, "wcet": 3, "blocks": 1, "threads": 64, "slowdown": 1.25},
      {"name": "b", "period": 100, "wcet": 1, "blocks": 1, "threads": 64}])",
                                      "ns"));
  EXPECT_EQ(quarter.completion(0b01), 3);
  EXPECT_EQ(quarter.completion(0b11), 4);  // ceil(3.75)
  const PbsJobs tenth(two_sm_system(R"([
      {"name": "a", "period": 1000, "wcet": 100, "blocks": 1, "threads": 64, "slowdown": 1.1},
      {"name": "b", "period": 1000, "wcet": 1, "blocks": 1, "threads": 64}])",
                                    "ns"));
  EXPECT_EQ(tenth.completion(0b11), 110);
  const PbsSystem tight = two_sm_system(R"([
      {"name": "a", "period": 100, "deadline": 5, "wcet": 5, "blocks": 1, "threads": 64, "slowdown": 1.0000001},
      {"name": "b", "period": 100, "deadline": 5, "wcet": 5, "blocks": 1, "threads": 64, "slowdown": 1.0000001}])",
                                        "ns");
  EXPECT_EQ(PbsJobs(tight).completion(0b11), 6);
  for (PbsPolicy policy : {PbsPolicy::gpusched, PbsPolicy::edf_serial, PbsPolicy::edf_parallel})
    EXPECT_FALSE(analyse_pbs(tight, {.policy = policy}).schedulable) << static_cast<int>(policy);
}

}  // namespace
}  // namespace gpurt

// The fast GPUSched search against the plain Algorithm 1 (every permutation, breadth first,
// no domination beyond identical vertices) on random small systems: the same verdict on every
// one, every table each returns is a valid PBS schedule, and with --explore-all every merge
// variant (dominated, identical, none) returns a table ending when the plain search's earliest does.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/rng.hpp"
#include "pbs_helpers.hpp"

namespace gpurt {
namespace {

// 2-4 tasks on two SMs of 256 threads (tight enough that order and set matter), periods from
// {4, 6, 8, 12} ns (hyperperiod <= 24), random WCETs, deadlines, shapes, slowdowns and, for
// some pairs, a table entry.
PbsSystem random_system(Rng& rng) {
  Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "tasks": [], "batches": []})");
  doc["platform"] = test::two_sm_platform();
  const int n = static_cast<int>(rng.uniform_int(2, 4));
  static constexpr std::int64_t kPeriods[] = {4, 6, 8, 12};
  static constexpr int kThreads[] = {32, 64, 128, 192, 256};
  std::vector<std::int64_t> wcets;
  for (int i = 0; i < n; ++i) {
    const std::int64_t period = kPeriods[rng.uniform_int(0, 3)];
    const std::int64_t wcet = rng.uniform_int(1, std::max<std::int64_t>(1, period / 2));
    wcets.push_back(wcet);
    const int threads = kThreads[rng.uniform_int(0, 4)];
    const std::int64_t blocks = rng.uniform_int(1, 512 / threads);
    Json task{{"name", fmt::format("t{}", i)},
              {"period", period},
              {"deadline", rng.uniform_int(wcet, period)},
              {"wcet", wcet},
              {"blocks", blocks},
              {"threads", threads},
              {"slowdown", 1.0 + 0.25 * static_cast<double>(rng.uniform_int(0, 4))}};
    doc["tasks"].push_back(std::move(task));
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (rng.uniform_int(0, 3) == 0) {
        doc["batches"].push_back(
            Json{{"tasks", {fmt::format("t{}", i), fmt::format("t{}", j)}},
                 // a batch takes at least its members' wcets
                 {"completion", std::max({wcets[static_cast<std::size_t>(i)],
                                          wcets[static_cast<std::size_t>(j)], rng.uniform_int(1, 6)})}});
      }
    }
  }
  return parse_pbs_system(doc, "random.json");
}

TEST(PbsExactness, FastSearchAgreesWithPlainAlgorithm1On1200RandomSystems) {
  Rng rng(2024);
  int schedulable = 0, unschedulable = 0, merged_somewhere = 0, split_somewhere = 0, merged_schedulable = 0,
      bounded_somewhere = 0;
  for (int case_index = 0; case_index < 1200; ++case_index) {
    const PbsSystem s = random_system(rng);
    const PbsResult plain = analyse_pbs(s, {.policy = PbsPolicy::gpusched_reference});
    const PbsResult fast = analyse_pbs(s, {.policy = PbsPolicy::gpusched});
    const PbsResult all = analyse_pbs(s, {.policy = PbsPolicy::gpusched, .explore_all = true});
    const PbsResult identical_only =
        analyse_pbs(s, {.policy = PbsPolicy::gpusched, .merge = PbsMerge::identical});
    const PbsResult tree = analyse_pbs(s, {.explore_all = true, .merge = PbsMerge::none});
    const PbsResult identical_all =
        analyse_pbs(s, {.explore_all = true, .whole_graph = true, .merge = PbsMerge::identical});
    const PbsResult whole = analyse_pbs(s, {.explore_all = true, .whole_graph = true});
    ASSERT_EQ(identical_only.schedulable, plain.schedulable) << "case " << case_index;
    ASSERT_EQ(tree.schedulable, plain.schedulable) << "case " << case_index;
    ASSERT_TRUE(plain.complete && fast.complete && all.complete && tree.complete && identical_all.complete &&
                whole.complete);
    ASSERT_EQ(whole.schedulable, plain.schedulable) << "case " << case_index;
    ASSERT_EQ(whole.stats.vertices_bounded, 0u);
    // No merge at all: the tree holds at least as many vertices as any merged graph.
    ASSERT_GE(tree.stats.vertices_created, plain.stats.vertices_created) << "case " << case_index;
    ASSERT_EQ(tree.stats.vertices_merged, 0u);
    ASSERT_EQ(fast.schedulable, plain.schedulable) << "case " << case_index << "\n" << to_json(s).dump(1);
    ASSERT_EQ(all.schedulable, plain.schedulable) << "case " << case_index;
    if (plain.schedulable) {
      ++schedulable;
      ASSERT_EQ(check_pbs_table(s, plain.table), "") << "case " << case_index;
      ASSERT_EQ(check_pbs_table(s, fast.table), "") << "case " << case_index;
      ASSERT_EQ(check_pbs_table(s, all.table), "") << "case " << case_index;
      // Exploring everything finds the earliest-ending schedule, as the plain search does,
      // whichever merges are made (explore-all merges into schedulable vertices too).
      ASSERT_EQ(all.table.back().end, plain.table.back().end) << "case " << case_index;
      ASSERT_EQ(check_pbs_table(s, whole.table), "") << "case " << case_index;
      ASSERT_EQ(whole.table.back().end, plain.table.back().end) << "case " << case_index;
      // The bound (reduction 7) only skips frames that cannot end earlier: never more work.
      ASSERT_LE(all.stats.vertices_created, whole.stats.vertices_created) << "case " << case_index;
      bounded_somewhere += all.stats.vertices_bounded > 0 ? 1 : 0;
      ASSERT_EQ(check_pbs_table(s, tree.table), "") << "case " << case_index;
      ASSERT_EQ(tree.table.back().end, plain.table.back().end) << "case " << case_index;
      ASSERT_EQ(identical_all.table.back().end, plain.table.back().end) << "case " << case_index;
    } else {
      ++unschedulable;
      EXPECT_TRUE(fast.table.empty());
    }
    merged_somewhere += fast.stats.vertices_merged > 0 ? 1 : 0;
    merged_schedulable +=
        whole.stats.vertices_merged > identical_all.stats.vertices_merged && whole.schedulable ? 1 : 0;
    split_somewhere += fast.stats.vertices_split > 0 ? 1 : 0;
  }
  // The sample exercises both verdicts and both reductions.
  EXPECT_GT(schedulable, 200);
  EXPECT_GT(unschedulable, 200);
  EXPECT_GT(merged_somewhere, 100);
  EXPECT_GT(split_somewhere, 20);
  EXPECT_GT(merged_schedulable, 20);  // explore-all's Δ > 0 merges on schedulable systems
  EXPECT_GT(bounded_somewhere, 20);   // and its bound cuts frames on schedulable systems
}

}  // namespace
}  // namespace gpurt

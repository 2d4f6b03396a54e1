// PBS §6.2 sweeps on the runner: each row is the analyses' own verdicts on the documented sets.
#include <gtest/gtest.h>

#include "gpurt/exp/pbs_sweep.hpp"
#include "gpurt/exp/sweep_csv.hpp"

namespace gpurt {
namespace {

TEST(PbsSweep, Figure4RowsAreTheThreePoliciesVerdictsOnTheDocumentedSets) {
  PbsSweepOptions o;
  o.figure = PbsFigure::fig4;
  o.slowdown = PbsSlowdown::mixed;
  o.sets = 8;
  o.seed = 11;
  o.utilizations = {0.6, 1.0};
  const SweepOutcome r1 = run_sweep(pbs_sweep_experiment(o), {.threads = 1});
  const SweepOutcome r2 = run_sweep(pbs_sweep_experiment(o), {.threads = 2});
  EXPECT_EQ(r1.csv, r2.csv);
  ASSERT_EQ(r1.rows.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    std::array<int, 3> count{};
    int sets = 0;
    for (int j = 0; j < o.sets; ++j) {
      Rng rng = Rng(o.seed).fork(p * 8 + static_cast<std::size_t>(j));
      const auto s =
          generate_pbs_system(rng, {.tasks = 5, .utilization = o.utilizations[p], .slowdown = o.slowdown});
      if (!s) continue;
      ++sets;
      count[0] += analyse_pbs(*s, {.policy = PbsPolicy::gpusched}).schedulable ? 1 : 0;
      count[1] += analyse_pbs(*s, {.policy = PbsPolicy::edf_serial}).schedulable ? 1 : 0;
      count[2] += analyse_pbs(*s, {.policy = PbsPolicy::edf_parallel}).schedulable ? 1 : 0;
    }
    const std::vector<std::string>& row = r1.rows[p];
    EXPECT_EQ(row[2], "mixed");
    EXPECT_EQ(row[3], p == 0 ? "0.6" : "1");
    EXPECT_EQ(row[5], std::to_string(sets));
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_DOUBLE_EQ(std::stod(row[6 + k]), static_cast<double>(count[k]) / sets);
    EXPECT_EQ(row[9], "0");
    // GPUSched is exact: it accepts every set a baseline schedules.
    EXPECT_GE(count[0], std::max(count[1], count[2]));
  }
}

TEST(PbsSweep, Figure5cMergingNeverGrowsTheGraph) {
  PbsSweepOptions o;
  o.figure = PbsFigure::fig5c;
  o.sets = 6;
  o.seed = 5;
  // Sets 0 and 1 of seed 5 grow an unmerged tree past this cap (the no_merge_complete = false
  // branch); the rest finish under it. The default 5,000,000 made this test take minutes under
  // AddressSanitizer.
  o.max_vertices = 100'000;
  const SweepOutcome r = run_sweep(pbs_sweep_experiment(o), {.threads = 2});
  ASSERT_EQ(r.rows.size(), 6u);
  EXPECT_EQ(r.rows[0][12], "false");
  EXPECT_EQ(r.rows[2][12], "true");
  for (std::size_t p = 0; p < r.rows.size(); ++p) {
    const std::vector<std::string>& row = r.rows[p];
    ASSERT_EQ(row[6], "1");  // a set was generated
    Rng rng = Rng(o.seed).fork(p);
    const auto s = generate_pbs_system(rng, {.tasks = 5, .utilization = 1.0, .slowdown = o.slowdown});
    ASSERT_TRUE(s);
    const PbsResult a =
        analyse_pbs(*s, {.explore_all = true, .whole_graph = true, .max_vertices = o.max_vertices});
    EXPECT_EQ(row[7], a.schedulable ? "true" : "false");
    EXPECT_EQ(std::stoull(row[8]), a.stats.vertices_created);
    EXPECT_LE(std::stoull(row[8]), std::stoull(row[9]));
    // no_merge is the unmerged tree (PbsMerge::none), identical the Δ = 0-only graph.
    const PbsResult tree =
        analyse_pbs(*s, {.explore_all = true, .max_vertices = o.max_vertices, .merge = PbsMerge::none});
    EXPECT_EQ(tree.stats.vertices_merged, 0u);
    EXPECT_EQ(std::stoull(row[9]), tree.stats.vertices_created);
    EXPECT_EQ(row[12], tree.complete ? "true" : "false");
    const PbsResult identical = analyse_pbs(*s, {.explore_all = true,
                                                 .whole_graph = true,
                                                 .max_vertices = o.max_vertices,
                                                 .merge = PbsMerge::identical});
    EXPECT_EQ(std::stoull(row[13]), identical.stats.vertices_created);
  }
}

TEST(PbsSweep, Figure5bHasOneRowPerTaskCountAtUtilisationOne) {
  PbsSweepOptions o;
  o.figure = PbsFigure::fig5b;
  o.sets = 3;
  o.task_counts = {2, 3};
  const SweepOutcome r = run_sweep(pbs_sweep_experiment(o), {});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(join_csv_fields({r.rows[1][2], r.rows[1][3], r.rows[1][4], r.rows[1][5]}), "large,1,3,3");
  // min <= median <= max, in ms
  EXPECT_LE(std::stod(r.rows[1][6]), std::stod(r.rows[1][8]));
  EXPECT_LE(std::stod(r.rows[1][8]), std::stod(r.rows[1][11]));
}

TEST(PbsSweep, QuantileIsNearestRank) {
  EXPECT_EQ(quantile({5, 1, 3, 2, 4}, 0.5), 3);
  EXPECT_EQ(quantile({5, 1, 3, 2, 4}, 0.0), 1);
  EXPECT_EQ(quantile({5, 1, 3, 2, 4}, 1.0), 5);
  EXPECT_EQ(quantile({1, 2, 3, 4}, 0.25), 2);  // rank round(0.75) = 1
  EXPECT_EQ(quantile({}, 0.5), 0);
}

}  // namespace
}  // namespace gpurt

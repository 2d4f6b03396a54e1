// Playing GPUSched tables in the simulator (PBS seed §4.1): both dispatcher strategies.
#include <gtest/gtest.h>

#include "../analysis/pbs_helpers.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/sim/pbs_play.hpp"

namespace gpurt {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(PbsPlay, Figure1TableRunsAsModelledUnderBothStrategies) {
  const PbsSystem s = test::figure1();
  const PbsResult r = analyse_pbs(s);
  ASSERT_TRUE(r.schedulable);
  const PbsPlayResult timed = play_pbs_table(s, r.table);
  EXPECT_TRUE(timed.deadlines_met) << timed.first_problem;
  EXPECT_TRUE(timed.matches_model) << timed.first_problem;
  ASSERT_EQ(timed.frames.size(), r.table.size());
  for (std::size_t f = 0; f < r.table.size(); ++f) {
    EXPECT_EQ(timed.frames[f].start, r.table[f].start);
    EXPECT_EQ(timed.frames[f].end, r.table[f].end);  // the simulated frame = the model's
  }
  // Jobs at 80 % of their time: time-triggered keeps the table's starts; when-done starts frame 1
  // when frame 0 (J1, 1 ms -> 0.8 ms) ends, at 0.8 ms; frame 2 (t1's job 1) still waits for its
  // arrival at 4 ms.
  const PbsPlayResult early =
      play_pbs_table(s, r.table, {.strategy = PbsPlayStrategy::when_done, .execution_fraction = 0.8});
  EXPECT_TRUE(early.deadlines_met && early.matches_model) << early.first_problem;
  EXPECT_EQ(early.frames[0].end.count(), 8 * kMs / 10);
  EXPECT_EQ(early.frames[1].start.count(), 8 * kMs / 10);
  EXPECT_EQ(early.frames[2].start.count(), 4 * kMs);
  const PbsPlayResult late_timer = play_pbs_table(s, r.table, {.execution_fraction = 0.8});
  EXPECT_EQ(late_timer.frames[1].start, r.table[1].start);
}

TEST(PbsPlay, Example2_1OrderMattersInTheSimulatorToo) {
  Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "us", "tasks": [
      {"name": "J1", "period": 100, "deadline": 50, "wcet": 30, "blocks": 4, "threads": 64, "slowdown": 1.5},
      {"name": "J2", "period": 100, "deadline": 50, "wcet": 30, "blocks": 1, "threads": 192, "slowdown": 1.5}]})");
  doc["platform"] = test::two_sm_platform();
  const PbsSystem s = parse_pbs_system(doc, "ex21.json");
  // GPUSched's table <J2, J1> co-runs: one 45 us frame (30 × 1.5).
  const PbsResult r = analyse_pbs(s);
  ASSERT_TRUE(r.schedulable);
  const PbsPlayResult ok = play_pbs_table(s, r.table);
  EXPECT_TRUE(ok.matches_model && ok.deadlines_met) << ok.first_problem;
  EXPECT_EQ(ok.frames[0].end.count(), 45'000);
  // The same batch submitted <J1, J2> (not eligible): J2's block waits in the simulator.
  std::vector<PbsFrame> swapped = r.table;
  std::swap(swapped[0].jobs[0], swapped[0].jobs[1]);
  const PbsPlayResult bad = play_pbs_table(s, swapped);
  EXPECT_FALSE(bad.matches_model);
  EXPECT_FALSE(bad.frames[0].started_at_once);
  EXPECT_FALSE(bad.deadlines_met);  // J2 starts when J1's blocks end at 45 and ends at 90 > 50
  EXPECT_EQ(bad.first_problem, "J2#0 ends at 90 us, after its deadline 50 us");  // in the file's unit
}

}  // namespace
}  // namespace gpurt

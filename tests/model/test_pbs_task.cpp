// The gpurt/pbs@1 file: defaults, unit conversion and every rejected value the issue lists.
#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt {
namespace {

Json base() {
  return Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "us", "platform": "jetson-tx2",
    "tasks": [
      {"name": "a", "period": 400, "wcet": 100, "blocks": 4, "threads": 256, "registers": 32,
       "shared_memory": 1024, "slowdown": 1.5},
      {"name": "b", "period": 800, "deadline": 600, "wcet": 50.5, "blocks": 2, "threads": 1024}],
    "batches": [{"tasks": ["b", "a"], "completion": 180}]})");
}

std::string error_of(const Json& doc) {
  try {
    (void)parse_pbs_system(doc, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PbsTaskFile, ReadsTasksBatchesAndDefaults) {
  const PbsSystem s = parse_pbs_system(base(), "s.json");
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].period, Nanos{400'000});
  EXPECT_EQ(s.tasks[0].deadline, Nanos{400'000});  // defaults to the period
  EXPECT_EQ(s.tasks[1].deadline, Nanos{600'000});
  EXPECT_EQ(s.tasks[1].wcet, Nanos{50'500});
  EXPECT_EQ(s.tasks[0].shape().registers, 32 * 256);
  EXPECT_EQ(s.tasks[1].slowdown, 1.0);
  ASSERT_EQ(s.batches.size(), 1u);
  EXPECT_EQ(s.batches[0].tasks, (std::vector<int>{0, 1}));  // order-insensitive: sorted indices
  EXPECT_EQ(s.batches[0].completion, Nanos{180'000});
  EXPECT_EQ(pbs_hyperperiod(s), Nanos{800'000});
  // The file form reads back to the same system.
  const PbsSystem again = parse_pbs_system(to_json(s), "again.json");
  EXPECT_EQ(again.tasks[1].deadline, s.tasks[1].deadline);
  EXPECT_EQ(again.batches[0].tasks, s.batches[0].tasks);
}

TEST(PbsTaskFile, MaxResidentBlocksTakesTheTightestLimit) {
  const PbsSystem s = parse_pbs_system(base(), "s.json");
  // TX2: 2 SMs × (2048 threads, 32 blocks, 65536 registers, 64 KiB): 256-thread blocks with
  // 32 registers/thread = 8192 registers/block -> min(2048/256 = 8, 32, 65536/8192 = 8,
  // 65536/1024 = 64) = 8 per SM, 16 in all.
  EXPECT_EQ(max_resident_blocks(s.platform, s.tasks[0].shape()), 16);
}

TEST(PbsTaskFile, RejectsBadValuesNamingFilePathAndValue) {
  Json j = base();
  j["batches"][0]["tasks"][1] = "c";
  EXPECT_EQ(error_of(j), "s.json: batches[0].tasks[1] = \"c\": is not the name of a task in \"tasks\"");

  j = base();
  j["tasks"][1]["blocks"] = 3;  // 1024-thread blocks: 2 per SM, 4 on two SMs -> 3 fit; 5 do not
  EXPECT_EQ(error_of(j), "no error");
  j["tasks"][1]["blocks"] = 5;
  EXPECT_NE(error_of(j).find("s.json: tasks[1].blocks = 5: cannot all be resident"), std::string::npos)
      << error_of(j);

  j = base();
  j["tasks"][0]["period"] = 0;
  EXPECT_NE(error_of(j).find("s.json: tasks[0].period = 0: must be > 0"), std::string::npos) << error_of(j);
  j = base();
  j["tasks"][1]["deadline"] = -5;
  EXPECT_NE(error_of(j).find("tasks[1].deadline = -5"), std::string::npos) << error_of(j);
  j = base();
  j["tasks"][0]["wcet"] = 0;
  EXPECT_NE(error_of(j).find("tasks[0].wcet = 0"), std::string::npos) << error_of(j);
  j = base();
  j["tasks"][0]["slowdown"] = 0.9;
  EXPECT_NE(error_of(j).find("tasks[0].slowdown = 0.9: must be >= 1"), std::string::npos) << error_of(j);
  j = base();
  j["tasks"][1]["deadline"] = 900;
  EXPECT_NE(error_of(j).find("tasks[1].deadline = 900: must be <= period"), std::string::npos);
  j = base();
  j["tasks"][1]["threads"] = 2048;  // above the 1024 threads a block may have
  EXPECT_NE(error_of(j).find("tasks[1].threads = 2048"), std::string::npos);
  j = base();
  j["batches"][0]["tasks"] = Json::array({"a"});
  EXPECT_NE(error_of(j).find("must name at least two tasks"), std::string::npos);
  j = base();
  j["batches"].push_back(j["batches"][0]);
  EXPECT_NE(error_of(j).find("batches[1].tasks"), std::string::npos) << error_of(j);
  j = base();  // the batch ends when its last job does: not before a member's wcet
  j["batches"][0]["completion"] = 1;
  EXPECT_NE(error_of(j).find("batches[0].completion = 1: is less than the wcet of its task"),
            std::string::npos)
      << error_of(j);
  j = base();
  j["tasks"][0]["priority"] = 1;
  EXPECT_NE(error_of(j).find("priority"), std::string::npos);
  j = base();
  j["tasks"][1]["name"] = "a";
  EXPECT_NE(error_of(j).find("is the name of an earlier task"), std::string::npos);
}

// Without a deadline key the deadline is the period as written rounded DOWN (the period itself
// is a spacing, rounded to nearest): 10.0005 us gives a period of 10001 ns and a deadline of
// 10000 ns, so a 10.001 us job misses.
// On an AMD GPU with shader engines the oracle's allocation is not the simulator's: GPUSched
// certified tables whose batches then did not start at once and missed deadlines.
TEST(PbsTaskFile, RefusesAnAmdPlatformWithShaderEngines) {
  Json j = base();
  j["platform"] = "radeon-vii";
  EXPECT_EQ(
      error_of(j),
      "s.json: platform = \"radeon-vii\": radeon-vii dispatches blocks through shader engines, which the "
      "PBS eligibility oracle (NVIDIA's block allocation) does not model: use an NVIDIA platform");
}

TEST(PbsTaskFile, AnImplicitDeadlineRoundsDown) {
  Json j = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "us", "platform": "h100",
    "tasks": [{"name": "a", "period": 10.0005, "wcet": 10.001, "blocks": 1, "threads": 64}]})");
  const PbsSystem s = parse_pbs_system(j, "s.json");
  EXPECT_EQ(s.tasks[0].period, Nanos{10'001});
  EXPECT_EQ(s.tasks[0].deadline, Nanos{10'000});
  EXPECT_EQ(s.tasks[0].wcet, Nanos{10'001});
}

// Every time the PBS analyses compute stays below 2^63: times are at most 10^15 ns (the bound
// of every task file), the hyperperiod is at most 2^62 ns and the jobs of one hyperperiod may
// need at most 2^60 ns (Σ jobs × wcet × slowdown).
TEST(PbsTaskFile, RefusesTimesPast10To15NsAndHyperperiodsWhoseJobsNeedMoreThan2To60Ns) {
  Json j = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [{"name": "a", "period": 4.6e18, "wcet": 1e18, "blocks": 1, "threads": 64}]})");
  EXPECT_NE(
      error_of(j).find("s.json: tasks[0].period = 4.6e+18: is too large (times are limited to 10^15 ns"),
      std::string::npos)
      << error_of(j);
  // Past 2^53 ns a time read through a double rounds: this WCET read as 9007199254740992 and
  // met its deadline of 9007199254740992.
  j = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [{"name": "a", "period": 9007199254740994, "deadline": 9007199254740992,
               "wcet": 9007199254740993, "blocks": 1, "threads": 64}]})");
  EXPECT_NE(error_of(j).find("is too large (times are limited to 10^15 ns"), std::string::npos)
      << error_of(j);
  // Each time on its own: a WCET past 10^15 ns under a period within it.
  j = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [{"name": "a", "period": 1e15, "wcet": 1.5e15, "blocks": 1, "threads": 64}]})");
  EXPECT_NE(error_of(j).find("s.json: tasks[0].wcet = 1.5e+15: is too large"), std::string::npos)
      << error_of(j);
  // Periods 999·2^39 and 1000·2^39 ns (below 10^15) have H = 999000·2^39 ns; with wcet = period
  // the jobs of H need 2·H = 1.098e18 ns <= 2^60: loads; slowed by 1.1 in company, 1.208e18: refused.
  j = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ns", "platform": "h100",
    "tasks": [{"name": "a", "period": 549206058074112, "wcet": 549206058074112, "blocks": 1, "threads": 64},
              {"name": "b", "period": 549755813888000, "wcet": 549755813888000, "blocks": 1, "threads": 64}]})");
  EXPECT_EQ(error_of(j), "no error");
  j["tasks"][0]["slowdown"] = 1.1;
  j["tasks"][1]["slowdown"] = 1.1;
  EXPECT_NE(error_of(j).find("s.json: tasks: the jobs of one hyperperiod need 1.21e+18 ns of GPU time"),
            std::string::npos)
      << error_of(j);
  j = base();
  j["batches"][0]["completion"] = 2e15;  // us: 2e18 ns
  EXPECT_NE(error_of(j).find("s.json: batches[0].completion = 2e+15: is too large"), std::string::npos)
      << error_of(j);
}

}  // namespace
}  // namespace gpurt

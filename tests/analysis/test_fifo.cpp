// FIFO model seed: Example 2's task set and Theorem 1's limit.
#include <gtest/gtest.h>

#include "gpurt/analysis/fifo.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {
namespace {

// Example 2 (FIFO model seed §IV): τ1 = (1024·3.8, 8, 1, 1024), τ2 = (3584·6, 16, 7, 512),
// τ3 = (1024·6, 17, 1, 1024), τ4 = (2560·11.2, 18, 5, 512) on m = 4096 threads.
const char* kExample2 = R"({"format": "gpurt/fifo@1", "time_unit": "ms", "gpu_threads": 4096, "tasks": [
  {"name": "t1", "wcet": 3891.2, "period": 8, "grid": 1, "block": 1024},
  {"name": "t2", "wcet": 21504, "period": 16, "grid": 7, "block": 512},
  {"name": "t3", "wcet": 6144, "period": 17, "grid": 1, "block": 1024},
  {"name": "t4", "wcet": 28672, "period": 18, "grid": 5, "block": 512}]})";

TEST(FifoModel, Example2Utilisation) {
  const FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(kExample2), "ex2.json"));
  // u = 486.4 + 1344 + 361.41 + 1592.89 = 3784.70 (the seed: "U_sum = 3784.7 < 4096 = m").
  EXPECT_NEAR(r.total_utilization, 3784.7, 0.01);
  EXPECT_EQ(r.max_block, 1024);
  EXPECT_DOUBLE_EQ(r.limit, 4096 - 1024 + 1);  // 3073
  EXPECT_TRUE(r.at_or_above_limit);            // 3784.7 >= 3073
  EXPECT_FALSE(r.overloaded);                  // 3784.7 <= 4096
}

TEST(FifoModel, Theorem1Construction) {
  // Theorem 1's system with m = 4096, b_max = 1024 and ε → 0: k = floor(m/b_max)·b_max = 4096,
  // τ2 = (m − k, 1, m − k, 1) vanishes, τ3 = (k − b_max + 1, ...) = 3073, τ1 = (ε·k, 1, 4, 1024).
  // With ε = 0.001 and T = 1: C1 = 4.096, U = 4.096 + 3073 = 3077.096 >= 3073.
  const char* doc = R"({"format": "gpurt/fifo@1", "gpu_threads": 4096, "tasks": [
    {"name": "t1", "wcet": 4.096, "period": 1, "grid": 4, "block": 1024},
    {"name": "t3", "wcet": 3073, "period": 1, "grid": 3073, "block": 1}]})";
  const FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(doc), "t1.json"));
  EXPECT_NEAR(r.total_utilization, 3077.096, 1e-9);
  EXPECT_TRUE(r.at_or_above_limit);
  // Below the limit once τ3 shrinks by 5 threads: 4.096 + 3068 = 3072.096 < 3073.
  Json d = Json::parse(doc);
  d["tasks"][1]["wcet"] = 3068;
  d["tasks"][1]["grid"] = 3068;
  EXPECT_FALSE(analyse_fifo(parse_fifo_system(d, "t1.json")).at_or_above_limit);
}

// Theorem 1's boundary, U_sum = m − b_max + 1 exactly: m = 2 and (C, T, b) = (1, 2, 2), (1, 3, 1),
// (1, 6, 1) in ms (written in ns) give U_sum = 1/2 + 1/3 + 1/6 = 1 = 2 − 2 + 1: at the limit
// (>=). Summed in doubles it is 0.9999999999999999, so the verdict must come from exact
// arithmetic. One nanosecond less work in τ3 puts the system below the limit; one more, above.
TEST(FifoModel, Theorem1LimitIsInclusiveAndExact) {
  const char* doc = R"({"format": "gpurt/fifo@1", "time_unit": "ns", "gpu_threads": 2, "tasks": [
    {"name": "t1", "wcet": 1000000, "period": 2000000, "grid": 1, "block": 2},
    {"name": "t2", "wcet": 1000000, "period": 3000000, "grid": 1, "block": 1},
    {"name": "t3", "wcet": 1000000, "period": 6000000, "grid": 1, "block": 1}]})";
  const FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(doc), "boundary.json"));
  EXPECT_EQ(r.max_block, 2);
  EXPECT_DOUBLE_EQ(r.limit, 1.0);
  EXPECT_NEAR(r.total_utilization, 1.0, 1e-12);
  EXPECT_TRUE(r.at_or_above_limit);  // U_sum = 1 >= 1
  EXPECT_FALSE(r.overloaded);        // 1 <= 2
  Json d = Json::parse(doc);
  d["tasks"][2]["wcet"] = 999999;  // 1 ms − 1 ns
  EXPECT_FALSE(analyse_fifo(parse_fifo_system(d, "boundary.json")).at_or_above_limit);
  d["tasks"][2]["wcet"] = 1000001;  // 1 ms + 1 ns
  EXPECT_TRUE(analyse_fifo(parse_fifo_system(d, "boundary.json")).at_or_above_limit);
}

// Theorem 1 needs b_max > 1. With b_max = 1 (the malleable model) the limit m − b_max + 1 is m,
// and a system with U_sum = m is neither above Theorem 1's limit nor overloaded; only U_sum > m
// overloads it. With b_max = 2 the same utilisation is at or above the limit m − 1.
TEST(FifoModel, Theorem1NeedsBlocksLargerThanOneThread) {
  const char* doc = R"({"format": "gpurt/fifo@1", "time_unit": "ns", "gpu_threads": 2, "tasks": [
    {"name": "t1", "wcet": 1000000, "period": 1000000, "grid": 1, "block": 1},
    {"name": "t2", "wcet": 1000000, "period": 1000000, "grid": 1, "block": 1}]})";
  FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(doc), "malleable.json"));
  EXPECT_EQ(r.max_block, 1);
  EXPECT_DOUBLE_EQ(r.limit, 2.0);
  EXPECT_DOUBLE_EQ(r.total_utilization, 2.0);
  EXPECT_FALSE(r.at_or_above_limit);  // U_sum = 2 >= 2, but b_max = 1
  EXPECT_FALSE(r.overloaded);         // 2 <= 2
  Json d = Json::parse(doc);
  d["tasks"][1]["wcet"] = 1000001;  // U_sum = 2 + 10^-6 > m
  r = analyse_fifo(parse_fifo_system(d, "malleable.json"));
  EXPECT_FALSE(r.at_or_above_limit);
  EXPECT_TRUE(r.overloaded);
  d = Json::parse(doc);
  d["tasks"][0]["block"] = 2;
  r = analyse_fifo(parse_fifo_system(d, "malleable.json"));
  EXPECT_DOUBLE_EQ(r.limit, 1.0);
  EXPECT_TRUE(r.at_or_above_limit);
}

TEST(FifoModel, RejectsBlocksAboveTheLimit) {
  Json d = Json::parse(kExample2);
  d["tasks"][0]["block"] = 2048;
  try {
    parse_fifo_system(d, "ex2.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "ex2.json: tasks[0].block = 2048: must be <= b_lim = 1024 (the largest block the GPU "
                 "accepts)");
  }
}

}  // namespace
}  // namespace gpurt

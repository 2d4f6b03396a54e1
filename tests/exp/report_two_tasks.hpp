// The two-task system the report's library and CLI tests share; their hand-computed bounds
// (tests/exp/test_report.cpp) are worked from this text.
#pragma once

namespace gpurt::test {

// Two single-kernel tasks with CPU segments on the RTX 3060 Ti (H = 19 units of 2 SMs), us.
// a: L = [100, 50] -> S_a = {1, 2} (2·50 <= 1.1·100), L_max = 100, A_max = 100 unit·us.
// b: L = [200]     -> S_b = {1},                     L_max = 200, A_max = 200 unit·us.
// FFT/SMLP Lemma 2: R_a = 100 + ceil(200000 ns / 19) = 100 us + 10527 ns; with cpu 10 + 5:
// 125.527 us. R_b = 200 us + ceil(100000 ns / 19) = 200 us + 5264 ns = 205.264 us.
inline constexpr const char* kTwoTasks = R"({
  "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
  "tasks": [
    {"name": "a", "period": 1000, "deadline": 1000,
     "segments": [{"cpu": 10}, {"kernel": {"wcet_by_units": [100, 50]}}, {"cpu": 5}]},
    {"name": "b", "period": 2000, "deadline": 2000,
     "segments": [{"kernel": {"wcet_by_units": [200]}}]}
  ]})";

}  // namespace gpurt::test

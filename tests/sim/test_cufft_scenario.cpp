// The `cufft` plugin of examiner configs on the simulator: the cuFFT model's kernels (a MODEL,
// docs/fft.md) run in the instance's stream, in waves of the SMs its mask allows.
#include <gtest/gtest.h>

#include "gpurt/model/scenario.hpp"
#include "gpurt/sim/simulate.hpp"

using namespace gpurt;

namespace {
// The queueing rules' exact times: the ideal performance model.
const Platform& rtx3060ti() {
  static const Platform p = [] {
    Platform q = *find_platform_preset("rtx3060ti");
    q.model = PerfParams{};
    return q;
  }();
  return p;
}

SimResult run_cufft(Json extra) {
  Json b{{"filename", "./bin/cufft.so"},
         {"log_name", "fft.json"},
         {"thread_count", 0},
         {"block_count", 0},
         {"additional_info", {{"size", 4194304}}}};
  b.update(extra);
  const Json config{{"name", "fft"}, {"max_iterations", 2}, {"max_time", 0}, {"benchmarks", {b}}};
  return simulate(parse_scenario(config, "fft.json", rtx3060ti()), rtx3060ti());
}
}  // namespace

TEST(CufftScenario, TwoIterationsOnTheWholeGpuTakeTwiceTheModelTime) {
  // 2^22: the serial kernel (3500 + 182800/4 = 49200 ns) and 256 butterfly blocks of 14290 ns in
  // waves of 38 SMs: 49200 + 7·14290 = 149230 ns an iteration, 1 + 7 kernels.
  const SimResult r = run_cufft(Json::object());
  EXPECT_EQ(r.stats.kernels, 16u);
  EXPECT_EQ(r.stats.blocks, 2u * (1 + 256));
  EXPECT_EQ(r.stats.end_time, Nanos{2 * 149'230});
}

TEST(CufftScenario, AMaskOfThreeTpcsRunsInFortyThreeWaves) {
  // ~0x7: TPCs 0-2, 6 SMs: 49200 + ceil(256/6)·14290 = 663670 ns an iteration.
  const SimResult r = run_cufft({{"sm_mask", "~0x7"}});
  EXPECT_EQ(r.stats.kernels, 2u * 44);
  EXPECT_EQ(r.stats.end_time, Nanos{2 * 663'670});
}

// The cuFFT timing model (a MODEL fitted to FFT/SMLP §III-C; docs/fft.md): kernel shapes and
// times computed by hand, the seed's Example 1 and Table I row reproduced, the scenario plugin.
#include <gtest/gtest.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/model/cufft_model.hpp"
#include "gpurt/model/scenario.hpp"

using namespace gpurt;

namespace {
const Platform& rtx3060ti() { return *find_platform_preset("rtx3060ti"); }
}  // namespace

TEST(CufftModel, TwoToThe24IsTheSeedsExample1OnTheRtx3060Ti) {
  // s = 3500 + 182800·2^24/2^24 = 186300 ns; W = 7.9816 ms; B = 256 blocks of 2W/256 = 62356.25
  // → 62357 ns.
  const auto k = cufft_kernels({24, 1}, rtx3060ti());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].blocks, 1);
  EXPECT_EQ(k[0].block_time, Nanos{186'300});
  EXPECT_EQ(k[1].blocks, 256);
  EXPECT_EQ(k[1].block_time, Nanos{62'357});
  EXPECT_EQ(k[1].shape.threads, 1024);          // one block per SM: max threads per block
  EXPECT_EQ(k[1].shape.shared_memory, 102400);  // and all of the SM's shared memory
  // Dedicated time without any slowdown: s + ceil(256/2k)·t. (Example 1's L(1) = 9101 µs and
  // L(4) = 2501 µs are the calibrated profile's: tests/exp/test_fft.cpp.)
  EXPECT_EQ(cufft_model_time({24, 1}, rtx3060ti(), 1), Nanos{186'300 + 128 * 62'357});
  EXPECT_EQ(cufft_model_time({24, 1}, rtx3060ti(), 4), Nanos{186'300 + 32 * 62'357});
  EXPECT_EQ(cufft_model_time({24, 1}, rtx3060ti(), 5), Nanos{186'300 + 26 * 62'357});
  EXPECT_EQ(cufft_model_time({24, 1}, rtx3060ti(), 19), Nanos{186'300 + 7 * 62'357});
}

TEST(CufftModel, SmallSizesAreOneBlockAndDoNotScale) {
  // 2^10: s = 3500 + 182800·1024/2^24 = 3511.16 → 3512 ns; W = 7.9816e6·(1024·10)/(2^24·24)
  // = 202.98 ns; one block of 2W = 405.97 → 406 ns.
  const auto k = cufft_kernels({10, 1}, rtx3060ti());
  EXPECT_EQ(k[0].block_time, Nanos{3'512});
  EXPECT_EQ(k[1].blocks, 1);
  EXPECT_EQ(k[1].block_time, Nanos{406});
  EXPECT_EQ(cufft_model_time({10, 1}, rtx3060ti(), 1), Nanos{3'918});
  EXPECT_EQ(cufft_model_time({10, 1}, rtx3060ti(), 19), Nanos{3'918});
}

TEST(CufftModel, BatchMultipliesThePointsAndTheGrid) {
  // 2^12 × 4 = 2^14 points in a grid of 4 blocks; W = 7.9816e6·(16384·12)/(2^24·24) = 3897.27 ns.
  const auto k = cufft_kernels({12, 4}, rtx3060ti());
  EXPECT_EQ(k[1].blocks, 4);
  EXPECT_EQ(k[1].block_time, Nanos{1'949});  // 2W/4 = 1948.64
}

TEST(CufftModel, WavesSplitAGridWithoutChangingItsDedicatedTime) {
  const auto waves = in_waves(cufft_kernels({24, 1}, rtx3060ti()), 38);
  ASSERT_EQ(waves.size(), 1u + 7u);  // the serial kernel, then 6 waves of 38 and one of 28
  EXPECT_EQ(waves[1].blocks, 38);
  EXPECT_EQ(waves.back().blocks, 28);
  EXPECT_THROW(in_waves(waves, 0), Error);
  EXPECT_THROW(cufft_kernels({29, 1}, rtx3060ti()), Error);
  EXPECT_THROW(cufft_model_time({24, 1}, rtx3060ti(), 20), Error);
}

namespace {
Json cufft_config(Json info) {
  return Json{{"name", "fft"},
              {"max_iterations", 2},
              {"max_time", 0},
              {"benchmarks",
               {{{"filename", "./bin/cufft.so"},
                 {"log_name", "fft.json"},
                 {"thread_count", 0},
                 {"block_count", 0},
                 {"sm_mask", "~0x7"},
                 {"additional_info", std::move(info)}}}}};
}
}  // namespace

TEST(CufftModel, ScenarioPluginRunsTheModelsKernelsInWavesOfItsMask) {
  // sm_mask ~0x7 enables TPCs 0-2 = 6 SMs: 2^22 is the serial kernel then ceil(256/6) = 43 waves.
  const Scenario s = parse_scenario(cufft_config({{"size", 4194304}}), "c.json", rtx3060ti());
  ASSERT_EQ(s.instances.size(), 1u);
  const auto& actions = s.instances[0].actions;
  ASSERT_EQ(actions.size(), 44u);
  EXPECT_EQ(actions[0].kernel.blocks, 1);
  EXPECT_EQ(actions[1].kernel.blocks, 6);
  EXPECT_EQ(actions.back().kernel.blocks, 256 - 42 * 6);
  EXPECT_EQ(actions[1].kernel.block_time, Nanos{14'290});  // 2·(7.9816e6·22/96)/256 = 14289.97
}

TEST(CufftModel, ScenarioPluginRejectsSizesThatAreNotPowersOfTwo) {
  try {
    parse_scenario(cufft_config({{"size", 1000}}), "c.json", rtx3060ti());
    FAIL() << "size 1000 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: benchmarks[0].additional_info.size = 1000: must be a power of two (the cuFFT model "
              "covers 2^1..2^28)");
  }
  EXPECT_THROW(parse_scenario(cufft_config({{"size", 1024}, {"fft", 1}}), "c.json", rtx3060ti()), InputError);
}

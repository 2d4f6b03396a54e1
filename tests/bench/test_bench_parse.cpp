// The examiner parser's matrix_multiply and random_walk entries (examiner additional_info
// conventions) and their simulation timing models (docs/bench.md), the gpu-only cufft entry,
// and sm_mask -> partition units.
#include <gtest/gtest.h>

#include "gpurt/bench/bench.hpp"
#include "gpurt/bench/partition_mask.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/model/scenario.hpp"

namespace {

using gpurt::HostAction;

const gpurt::Platform& h100() { return *gpurt::find_platform_preset("h100"); }

gpurt::Scenario parse(const std::string& benchmark, const std::vector<std::string>& extra = {}) {
  const std::string text =
      R"({"name": "t", "max_iterations": 3, "max_time": 0, "benchmarks": [)" + benchmark + "]}";
  return gpurt::parse_scenario(gpurt::parse_json(text, "t.json"), "t.json", h100(), extra);
}

std::string error_of(const std::string& benchmark) {
  try {
    parse(benchmark);
  } catch (const gpurt::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BenchParse, MatrixMultiplySquareBlocksMM256) {
  // Dissertation §4.2.1 MM256: 16x16 blocks over a 1024x1024 matrix = 4096 blocks.
  const auto s = parse(R"({"filename": "./bin/matrix_multiply.so", "thread_count": 256, "block_count": 1,
      "additional_info": {"matrix_width": 1024}})");
  const auto& in = s.instances.at(0);
  EXPECT_EQ(in.plugin, "matrix_multiply");
  EXPECT_EQ(in.block_x, 16);
  EXPECT_EQ(in.block_y, 16);
  EXPECT_EQ(in.block_count, 4096);
  ASSERT_EQ(in.actions.size(), 3U);
  EXPECT_EQ(in.actions[0].kind, HostAction::Kind::copy);
  EXPECT_EQ(in.actions[0].bytes, 2 * 1024 * 1024 * 4);
  EXPECT_EQ(in.actions[2].direction, gpurt::CopyDirection::device_to_host);
  EXPECT_EQ(in.actions[2].bytes, 1024 * 1024 * 4);
  const auto& k = in.actions[1].kernel;
  EXPECT_EQ(k.blocks, 4096);
  EXPECT_EQ(k.shape.threads, 256);
  // 256 threads x 1024 multiply-adds x 0.4 ns = 104857.6 -> 104858 ns.
  EXPECT_EQ(k.block_time.count(), 104858);
}

TEST(BenchParse, MatrixMultiply2DBlocksAndSkipCopy) {
  const auto s = parse(R"({"filename": "matrix_multiply", "thread_count": [32, 8], "block_count": 0,
      "additional_info": {"matrix_width": 100, "skip_copy": true}})");
  const auto& in = s.instances.at(0);
  EXPECT_EQ(in.block_count, 4 * 13);  // ceil(100/32) x ceil(100/8)
  ASSERT_EQ(in.actions.size(), 1U);
  EXPECT_TRUE(in.skip_copy);
  EXPECT_EQ(in.actions[0].kernel.block_time.count(), 10240);  // 256 x 100 x 0.4
}

TEST(BenchParse, MatrixMultiplyCalibrationKey) {
  const std::string text = R"({"name": "t", "max_iterations": 1, "max_time": 0,
      "gpurt_sim": {"matrix_multiply_ns_per_fma": 1, "random_walk_ns_per_access": 250},
      "benchmarks": [{"filename": "matrix_multiply", "thread_count": 1024, "block_count": 1,
                      "additional_info": {"matrix_width": 64}},
                     {"filename": "random_walk", "thread_count": 32, "block_count": 2, "data_size": 4096,
                      "additional_info": 8}]})";
  const auto s = gpurt::parse_scenario(gpurt::parse_json(text, "t.json"), "t.json", h100());
  EXPECT_EQ(s.instances[0].actions[1].kernel.block_time.count(), 1024 * 64);
  EXPECT_EQ(s.instances[1].actions[0].kernel.block_time.count(), 2000);
}

// A benchmark's own "gpurt_sim" sets its plugin's time model, over the config's: on an H200 the
// isolated MM1024 and MM256 (2048 x 2048) fitted 0.083 and 0.382 ns per multiply-add, which no
// one config-wide value gives (docs/measured-h200.md).
TEST(BenchParse, ABenchmarksOwnTimeModelOverridesTheConfigs) {
  const std::string text = R"({"name": "t", "max_iterations": 1, "max_time": 0,
      "gpurt_sim": {"matrix_multiply_ns_per_fma": 1},
      "benchmarks": [{"filename": "matrix_multiply", "thread_count": 1024, "block_count": 1,
                      "additional_info": {"matrix_width": 64, "skip_copy": true},
                      "gpurt_sim": {"matrix_multiply_ns_per_fma": 0.25}},
                     {"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
                      "additional_info": {"matrix_width": 64, "skip_copy": true}},
                     {"filename": "random_walk", "thread_count": 32, "block_count": 2, "data_size": 4096,
                      "additional_info": 8, "gpurt_sim": {"random_walk_ns_per_access": 100, "memory_fraction": 0.5}}]})";
  const auto s = gpurt::parse_scenario(gpurt::parse_json(text, "t.json"), "t.json", h100());
  EXPECT_EQ(s.instances[0].actions[0].kernel.block_time.count(), 1024 * 64 / 4);
  EXPECT_EQ(s.instances[1].actions[0].kernel.block_time.count(), 256 * 64);  // the config's 1 ns
  EXPECT_EQ(s.instances[2].actions[0].kernel.block_time.count(), 800);
  EXPECT_DOUBLE_EQ(s.instances[2].actions[0].kernel.memory_fraction, 0.5);
  EXPECT_NE(
      error_of(R"({"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
                         "additional_info": {"matrix_width": 64}, "gpurt_sim": {"matrix_multiply_ns_per_fma": 0}})")
          .find("t.json: benchmarks[0].gpurt_sim.matrix_multiply_ns_per_fma = 0: must be in (0, 1e9] (ns)"),
      std::string::npos);
  // Another plugin's time model is read, changes nothing, and is named in a warning.
  const auto spin =
      parse(R"({"filename": "timer_spin", "thread_count": 32, "block_count": 1, "additional_info": 1000,
                              "gpurt_sim": {"matrix_multiply_ns_per_fma": 0.5}})");
  EXPECT_EQ(spin.instances[0].actions[0].kernel.block_time.count(), 1000);
  ASSERT_EQ(spin.warnings.size(), 1U);
  EXPECT_EQ(
      spin.warnings[0],
      "t.json: benchmarks[0].gpurt_sim.matrix_multiply_ns_per_fma = 0.5: times matrix_multiply benchmarks "
      "only; this one is timer_spin, so it changes nothing");
}

TEST(BenchParse, MatrixMultiplyErrorsNameThePath) {
  EXPECT_NE(error_of(R"({"filename": "matrix_multiply", "thread_count": 200, "block_count": 1,
      "additional_info": {"matrix_width": 64}})")
                .find("benchmarks[0].thread_count = 200: must be a square number"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
      "additional_info": {"matrix_width": 64, "skip": true}})")
                .find("benchmarks[0].additional_info"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
      "additional_info": {"matrix_width": 0}})")
                .find("matrix_width = 0"),
            std::string::npos);
}

TEST(BenchParse, MatrixMultiplyGridMustFitCuda) {
  EXPECT_NE(error_of(R"({"filename": "matrix_multiply", "thread_count": [64, 1], "block_count": 1,
      "additional_info": {"matrix_width": 65536}})")
                .find("thread_count = [64,1]: makes a grid of 1024 x 65536 blocks for matrix_width 65536"),
            std::string::npos);
}

TEST(BenchParse, RandomWalkReadsAndBuffer) {
  const auto s = parse(R"({"filename": "random_walk", "thread_count": 32, "block_count": 2,
      "data_size": 268435456, "additional_info": 256000})");
  const auto& in = s.instances.at(0);
  EXPECT_EQ(in.walk_reads, 256000);
  ASSERT_EQ(in.actions.size(), 1U);
  EXPECT_EQ(in.actions[0].kernel.blocks, 2);
  EXPECT_EQ(in.actions[0].kernel.block_time.count(), 128'000'000);  // 256000 x 500 ns
  const auto t = parse(R"({"filename": "random_walk", "thread_count": 32, "block_count": 2,
      "data_size": 64, "additional_info": {"iterations": 3}})");
  EXPECT_EQ(t.instances[0].actions[0].kernel.block_time.count(), 1500);
  EXPECT_NE(error_of(R"({"filename": "random_walk", "thread_count": 32, "block_count": 2,
      "additional_info": 10})")
                .find("random_walk needs data_size >= 8"),
            std::string::npos);
  // Its links are 32-bit indices: 2^34 bytes (2^32 links) is the most a walk can cover.
  EXPECT_NO_THROW(parse(R"({"filename": "random_walk", "thread_count": 32, "block_count": 2,
      "data_size": 17179869184, "additional_info": 1})"));
  EXPECT_NE(error_of(R"({"filename": "inorder_walk", "thread_count": 32, "block_count": 2,
      "data_size": 17179869188, "additional_info": 1})")
                .find("data_size = 17179869188: inorder_walk walks at most 2^34 bytes"),
            std::string::npos);
}

TEST(BenchParse, CufftIsReadByTheOneParserForBothBackends) {
  // The simulator models it (model/cufft_model) and the gpu plugin reads the same checked
  // additional_info: one parser, one set of keys.
  const std::string entry = R"({"filename": "./bin/cufft.so", "thread_count": 1, "block_count": 1,
      "data_size": 8192, "additional_info": {"size": 1024, "batch": 2}})";
  const auto s = parse(entry);
  const auto& in = s.instances.at(0);
  EXPECT_EQ(in.plugin, "cufft");
  EXPECT_FALSE(in.actions.empty());  // the model's kernels, for the sim backend
  EXPECT_EQ(in.additional_info.at("size"), 1024);
  EXPECT_EQ(in.additional_info.at("batch"), 2);
  EXPECT_EQ(in.data_size, 8192);
}

TEST(BenchParse, CufftAdditionalInfoIsCheckedForTheGpuBackend) {
  const std::string dir = ::testing::TempDir();
  auto error_for = [&](const std::string& info) {
    const std::string file = dir + "/cufft_bad.json";
    gpurt::write_file_atomically(file, R"({"name": "f", "max_iterations": 1, "max_time": 0, "benchmarks": [
        {"filename": "cufft", "thread_count": 1, "block_count": 1, "additional_info": )" +
                                           info + "}]}");
    try {
      gpurt::load_bench_scenario(file, h100(), gpurt::BenchBackend::gpu);
    } catch (const gpurt::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_for(R"({"size": 1000})")
                .find("benchmarks[0].additional_info.size = 1000: must be a power of two"),
            std::string::npos)
      << error_for(R"({"size": 1000})");
  EXPECT_NE(error_for(R"({"fft_size": 4096})").find("benchmarks[0].additional_info"), std::string::npos);
  EXPECT_NE(error_for("0").find("benchmarks[0].additional_info = 0"), std::string::npos);
  EXPECT_NE(error_for(R"({"size": 4096, "batch": 0})").find("benchmarks[0].additional_info.batch = 0"),
            std::string::npos);
  EXPECT_EQ(error_for(R"({"size": 4096, "batch": 4})"), "");
}

TEST(BenchPartitionMask, TpcUnits) {
  std::vector<bool> sms(8, false);
  for (int s = 0; s < 4; ++s) sms[static_cast<std::size_t>(s)] = true;
  std::string why;
  const auto m = gpurt::units_for_sm_mask(sms, 2, 4, why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->bits[0], 0b11U);
  sms[3] = false;
  EXPECT_FALSE(gpurt::units_for_sm_mask(sms, 2, 4, why));
  EXPECT_EQ(why, "unit 1 (SMs 2..3) is only partly enabled (1 of 2 SMs)");
  EXPECT_EQ(gpurt::sm_mask_hex(sms), "0x7");
}

TEST(BenchPartitionMask, GreenContextGroupsOnH100) {
  // 132 SMs in groups of 8: 16 units, SMs 128..131 belong to none.
  std::vector<bool> sms(132, false);
  for (int s = 8; s < 24; ++s) sms[static_cast<std::size_t>(s)] = true;
  std::string why;
  const auto m = gpurt::units_for_sm_mask(sms, 8, 16, why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->bits[0], 0b110U);
  sms[130] = true;
  EXPECT_FALSE(gpurt::units_for_sm_mask(sms, 8, 16, why));
  EXPECT_EQ(why, "SM 130 is not in any of the 16 whole units of 8 SMs");
}

// The gpu backend applies sm_mask through libsmctrl or green contexts; a mask neither can give
// is bad input found before anything runs (exit 2), not a worker failure.
TEST(BenchPartitionMask, CheckNamesTheInstanceAndWhyEachBackendCannot) {
  // sm_mask names TPCs (2 SMs on an H100) and "~X" enables only X's: TPCs 0..7 = SMs 0..15, two
  // green-context groups; TPCs 0..2 = SMs 0..5, part of one.
  gpurt::Scenario s = parse(R"({"filename": "timer_spin", "thread_count": 32, "block_count": 1,
                                 "sm_mask": "~0xff", "additional_info": 1000},
                                {"filename": "timer_spin", "thread_count": 32, "block_count": 1,
                                 "sm_mask": "~0x7", "additional_info": 1000})");
  ASSERT_EQ(s.source, "t.json");
  const std::vector<gpurt::PartitionBackendInfo> h100_green = {
      {"green-context", true, 8, 16, ""},
      {"libsmctrl", false, 0, 0, "libsmctrl is not installed"},
      {"persistent-threads", true, 1, 132, ""},
  };
  std::string msg;
  try {
    gpurt::check_sm_masks(s, h100_green);
  } catch (const gpurt::InputError& e) {
    msg = e.what();
    EXPECT_EQ(e.path(), "benchmarks[1].sm_mask");
  }
  EXPECT_EQ(
      msg,
      "t.json: benchmarks[1].sm_mask: enables SMs 0x3f, which no partition backend of this GPU can give; "
      "libsmctrl: libsmctrl is not installed; green-context: unit 0 (SMs 0..7) is only partly enabled "
      "(6 of 8 SMs)");
  // With libsmctrl's TPCs (2 SMs each) both masks can be given.
  const std::vector<gpurt::PartitionBackendInfo> with_libsmctrl = {{"green-context", true, 8, 16, ""},
                                                                   {"libsmctrl", true, 2, 66, ""}};
  EXPECT_NO_THROW(gpurt::check_sm_masks(s, with_libsmctrl));
  // Unrestricted instances need no backend at all.
  s.instances[0].sm_mask.assign(132, true);
  s.instances.pop_back();
  EXPECT_NO_THROW(gpurt::check_sm_masks(s, {}));
}

// The H200 configs of docs/measured-h200.md, on the backends that H200 had: green contexts in 15
// groups of 8 SMs (SMs 120..131 in none), no libsmctrl. sm_mask "~M" enables M's TPCs (libsmctrl
// sets a bit to disable a TPC): the first try wrote "M", which enabled the complement, and the GPU
// refused it ("SM 120 is not in any of the 15 whole units of 8 SMs").
TEST(BenchPartitionMask, H200ConfigsEnableWholeGreenContextGroups) {
  const gpurt::Platform& h200 = *gpurt::find_platform_preset("h200");
  const std::vector<gpurt::PartitionBackendInfo> measured = {
      {"green-context", true, 8, 15, ""}, {"libsmctrl", false, 0, 0, "libsmctrl is not installed"}};
  const auto enabled = [](const std::vector<bool>& sms) {
    std::vector<int> on;
    for (std::size_t i = 0; i < sms.size(); ++i)
      if (sms[i]) on.push_back(static_cast<int>(i));
    return on;
  };
  const auto range = [](int first, int count) {
    std::vector<int> r;
    for (int i = first; i < first + count; ++i) r.push_back(i);
    return r;
  };
  struct Case {
    const char* config;
    std::vector<std::vector<int>> sms;  // per instance; empty = every SM
  };
  const Case cases[] = {{"mm_even", {range(0, 56), range(56, 56)}},
                        {"mm_uneven", {range(0, 24), range(24, 96)}},
                        {"mm_iso_1024_half", {range(0, 56)}},
                        {"mm_full", {{}, {}}},
                        {"mm_iso_1024", {{}}},
                        {"mm_iso_256", {{}}}};
  for (const Case& c : cases) {
    const gpurt::Scenario s =
        gpurt::load_scenario(std::string(GPURT_SOURCE_DIR "/examples/h200/") + c.config + ".json", h200);
    ASSERT_EQ(s.instances.size(), c.sms.size()) << c.config;
    for (std::size_t i = 0; i < c.sms.size(); ++i) {
      if (c.sms[i].empty()) {
        EXPECT_TRUE(s.instances[i].sm_mask.empty() || enabled(s.instances[i].sm_mask).size() == 132U)
            << c.config;
      } else {
        EXPECT_EQ(enabled(s.instances[i].sm_mask), c.sms[i]) << c.config << " instance " << i;
      }
    }
    EXPECT_NO_THROW(gpurt::check_sm_masks(s, measured)) << c.config;
  }
}

TEST(BenchParse, DeviceKeysAndMpsPercentageAreRead) {
  auto doc = [](const std::string& top, const std::string& bench) {
    return gpurt::parse_json(
        R"({"name": "d", "max_iterations": 1, "max_time": 0, )" + top +
            R"("benchmarks": [{"filename": "timer_spin", "thread_count": 32, "block_count": 1,
                                     "additional_info": 1000)" +
            bench + "}]}",
        "d.json");
  };
  gpurt::Scenario s = gpurt::parse_scenario(doc(R"("cuda_device": 1,)", R"(, "mps_thread_percentage": 25)"),
                                            "d.json", h100());
  EXPECT_EQ(s.device, 1);
  ASSERT_TRUE(s.instances[0].mps_thread_percentage);
  EXPECT_DOUBLE_EQ(*s.instances[0].mps_thread_percentage, 25.0);
  EXPECT_EQ(gpurt::parse_scenario(doc(R"("gpu_device_id": 2,)", ""), "d.json", h100()).device, 2);
  EXPECT_EQ(gpurt::parse_scenario(doc("", ""), "d.json", h100()).device, 0);
  try {
    gpurt::parse_scenario(doc(R"("cuda_device": 1, "gpu_device_id": 2,)", ""), "d.json", h100());
    ADD_FAILURE() << "conflicting device keys were accepted";
  } catch (const gpurt::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "d.json: gpu_device_id = 2: names device 2 but cuda_device names 1");
  }
}

TEST(BenchParse, GpuBackendRefusesMpsPercentageInThreads) {
  const std::string file = ::testing::TempDir() + "/mps_threads.json";
  auto write = [&](bool processes) {
    gpurt::write_file_atomically(
        file, std::string(R"({"name": "m", "max_iterations": 1, "max_time": 0, "use_processes": )") +
                  (processes ? "true" : "false") + R"(, "benchmarks": [
        {"filename": "timer_spin", "thread_count": 32, "block_count": 1, "additional_info": 1000,
         "mps_thread_percentage": 50}]})");
  };
  write(false);
  try {
    gpurt::load_bench_scenario(file, h100(), gpurt::BenchBackend::gpu);
    ADD_FAILURE() << "mps_thread_percentage in a thread was accepted";
  } catch (const gpurt::InputError& e) {
    EXPECT_EQ(e.path(), "benchmarks[0].mps_thread_percentage");
    EXPECT_NE(std::string(e.what()).find("needs \"use_processes\": true"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(gpurt::load_bench_scenario(file, h100(), gpurt::BenchBackend::sim));  // not modelled
  write(true);
  EXPECT_NO_THROW(gpurt::load_bench_scenario(file, h100(), gpurt::BenchBackend::gpu));
}

}  // namespace

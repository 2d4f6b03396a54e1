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

}  // namespace

// The AMD CU-mask backend's CPU-side parts: CU and SE counts from KFD topology nodes (the
// amdgpu driver's sysfs files) and the backend's "unavailable" path where no HIP runtime exists.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpurt/core/error.hpp"
#include "gpurt/runtime/amd_hip.hpp"

using namespace gpurt;

namespace {

// The keys a KFD node's properties file carries (others omitted; unique_id is a u64 beyond
// long long, which must not stop the reading): a Radeon VII (gfx906) has
// 240 SIMDs, 4 per CU -> 60 CUs; 4 shader arrays, 1 per engine -> 4 SEs (Dissertation §2.3).
constexpr const char* kRadeonVii =
    "cpu_cores_count 0\nunique_id 18446744073709551615\nsimd_count 240\nmem_banks_count 1\nsimd_per_cu 4\n"
    "gfx_target_version 90006\narray_count 4\nsimd_arrays_per_engine 1\ncu_per_simd_array 15\n";
// An MI100 (gfx908): 480 SIMDs -> 120 CUs; 8 arrays -> 8 SEs.
constexpr const char* kMi100 = "simd_count 480\nsimd_per_cu 4\narray_count 8\nsimd_arrays_per_engine 1\n";
// An RDNA2 card (gfx1030): 2 SIMDs per CU, 2 shader arrays per engine: 160 / 2 = 80 CUs, 8 / 2 = 4 SEs.
constexpr const char* kRdna2 = "simd_count 160\nsimd_per_cu 2\narray_count 8\nsimd_arrays_per_engine 2\n";
constexpr const char* kCpuNode = "cpu_cores_count 16\nsimd_count 0\nmem_banks_count 1\n";

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST(AmdHip, KfdNodeTopologyGivesCusAndShaderEngines) {
  const auto vii = kfd_node_topology(kRadeonVii);
  ASSERT_TRUE(vii.has_value());
  EXPECT_EQ(vii->cus, 60);
  EXPECT_EQ(vii->ses, 4);
  const auto mi100 = kfd_node_topology(kMi100);
  ASSERT_TRUE(mi100.has_value());
  EXPECT_EQ(mi100->cus, 120);
  EXPECT_EQ(mi100->ses, 8);
  const auto rdna2 = kfd_node_topology(kRdna2);
  ASSERT_TRUE(rdna2.has_value());
  EXPECT_EQ(rdna2->cus, 80);
  EXPECT_EQ(rdna2->ses, 4);
  EXPECT_FALSE(kfd_node_topology(kCpuNode).has_value());
}

TEST(AmdHip, InconsistentKfdNodesAreErrors) {
  EXPECT_THROW(kfd_node_topology("simd_count 240\n"), Error);  // missing keys
  EXPECT_THROW(kfd_node_topology("simd_count 240\nsimd_per_cu 0\narray_count 4\nsimd_arrays_per_engine 1\n"),
               Error);
  EXPECT_THROW(kfd_node_topology("simd_count 242\nsimd_per_cu 4\narray_count 4\nsimd_arrays_per_engine 1\n"),
               Error);
  // 60 CUs on 7 SEs: not a whole number of CUs per SE.
  EXPECT_THROW(kfd_node_topology("simd_count 240\nsimd_per_cu 4\narray_count 7\nsimd_arrays_per_engine 1\n"),
               Error);
  EXPECT_THROW(kfd_node_topology("cpu_cores_count 4\n"), Error);  // no simd_count at all
}

TEST(AmdHip, GpuNodesComeInNumericNodeOrderSkippingCpus) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpurt-kfd-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write(dir / "0" / "properties", kCpuNode);
  write(dir / "1" / "properties", kMi100);
  write(dir / "2" / "properties", kRadeonVii);
  write(dir / "10" / "properties", kRdna2);  // numeric order: 10 after 2
  std::filesystem::create_directories(dir / "not-a-node");
  const auto gpus = kfd_gpu_topologies(dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(gpus.size(), 3U);
  EXPECT_EQ(gpus[0].cus, 120);
  EXPECT_EQ(gpus[1].cus, 60);
  EXPECT_EQ(gpus[2].cus, 80);
  EXPECT_TRUE(kfd_gpu_topologies((dir / "absent").string()).empty());
}

TEST(AmdHip, BackendIsListedAndUnavailableWithoutTheHipRuntime) {
  // Every name the loader tries (an H200 machine here had libamdhip64.so.6 without
  // libamdhip64.so, and no AMD GPU).
  for (const char* name : kHipRuntimeNames) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
        lib != nullptr || (lib = dlopen(name, RTLD_NOW)) != nullptr) {
      dlclose(lib);
      GTEST_SKIP() << "the HIP runtime is installed here (" << name
                   << "); this test covers machines without it";
    }
  }
  const auto backends = partition_backends();
  ASSERT_FALSE(backends.empty());
  const PartitionBackendInfo& amd = backends.back();
  EXPECT_EQ(amd.name, "amd-cu-mask");
  EXPECT_FALSE(amd.available);
  EXPECT_NE(amd.note.find("libamdhip64.so"), std::string::npos) << amd.note;
  try {
    (void)make_partitioner(PartitionKind::amd_cu_mask);
    FAIL() << "make_partitioner(amd_cu_mask) succeeded without a HIP runtime";
  } catch (const PartitionError& e) {
    EXPECT_NE(std::string(e.what()).find("HIP runtime"), std::string::npos) << e.what();
  }
}

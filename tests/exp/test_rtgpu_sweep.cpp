// The RTGPU sweep: same numbers for any thread count, and each verdict is the analysis's own.
#include <gtest/gtest.h>

#include "gpurt/exp/rtgpu_sweep.hpp"

namespace gpurt {
namespace {

RtgpuSweepOptions small() {
  RtgpuSweepOptions o;
  o.utilizations = {0.2, 0.6, 1.0};
  o.sets_per_point = 12;
  o.seed = 77;
  return o;
}

TEST(RtgpuSweep, SameResultForAnyThreadCount) {
  std::string first;
  for (int threads : {1, 2, 4, 8}) {
    RtgpuSweepOptions o = small();
    o.threads = threads;
    const std::string csv = to_csv(run_rtgpu_sweep(o), o.methods);
    if (first.empty()) first = csv;
    EXPECT_EQ(csv, first) << threads << " threads";
  }
}

TEST(RtgpuSweep, CountsAreTheAnalysisVerdicts) {
  const RtgpuSweepOptions o = small();
  const auto points = run_rtgpu_sweep(o);
  ASSERT_EQ(points.size(), 3u);
  // Recount point 1 serially from the documented per-set seeds.
  std::vector<int> expected(o.methods.size(), 0);
  for (int j = 0; j < o.sets_per_point; ++j) {
    RtgpuTable1Options g = o.generator;
    g.utilization = 0.6;
    Rng rng = Rng(o.seed).fork(static_cast<std::uint64_t>(o.sets_per_point + j));
    const RtgpuSystem s = generate_rtgpu_table1(rng, g);
    for (std::size_t k = 0; k < o.methods.size(); ++k) {
      expected[k] += analyse_rtgpu(s, {o.methods[k], o.search}).schedulable ? 1 : 0;
    }
  }
  EXPECT_EQ(points[1].accepted, expected);
  EXPECT_EQ(points[1].sets, 12);
  const std::string csv = to_csv(points, o.methods);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr");
}

}  // namespace
}  // namespace gpurt

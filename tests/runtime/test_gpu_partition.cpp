// GPU partition checks, one parameterised core per backend (STYLE.md, after libsmctrl's test):
// launch on a partition's stream, record each block's %smid, check that none ran outside the
// partition; two disjoint partitions co-run on disjoint SMs at the same time; a cached partition
// switch costs a lookup. Without a GPU (or without CUDA) every test SKIPs with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "gpurt/runtime/gpu_probe.hpp"
#include "gpurt/runtime/lock.hpp"
#include "gpurt/runtime/partition.hpp"

using namespace gpurt;

namespace gpurt {
// Readable parameter names in test output.
void PrintTo(PartitionKind kind, std::ostream* os) { *os << to_string(kind); }
}  // namespace gpurt

namespace {

std::unique_ptr<Partitioner> open_or_skip_reason(PartitionKind kind, std::string& reason) {
  try {
    return make_partitioner(kind);
  } catch (const PartitionError& e) {
    reason = std::string(to_string(kind)) + " unavailable: " + e.what();
    return nullptr;
  }
}

std::set<int> sms_of(const std::vector<BlockRecord>& blocks) {
  std::set<int> s;
  for (const BlockRecord& b : blocks) s.insert(b.sm);
  return s;
}

gpurt_mask first_units(int from, int count) {
  gpurt_mask m{};
  for (int u = from; u < from + count; ++u) m.bits[u / 64] |= std::uint64_t{1} << (u % 64);
  return m;
}

class GpuPartition : public ::testing::TestWithParam<PartitionKind> {
 protected:
  void SetUp() override {
    std::string reason;
    _p = open_or_skip_reason(GetParam(), reason);
    if (!_p) GTEST_SKIP() << reason;
    if (_p->units() < 2) GTEST_SKIP() << "only " << _p->units() << " unit(s): nothing to partition";
  }
  std::unique_ptr<Partitioner> _p;
};

}  // namespace

TEST_P(GpuPartition, BlocksStayInsideTheMask) {
  const int half = _p->units() / 2;
  const gpurt_mask mask = first_units(0, half);
  const int sms = device_sm_count();
  if (_p->cooperative()) {
    const PinnedRun run = run_pinned_probe(_p->device_mask(mask), sms, 4, 128, 4096, 2'000, _p->stream(mask));
    std::set<int> used(run.item_sms.begin(), run.item_sms.end());
    EXPECT_EQ(used.count(-1), 0U) << "an item was never run";
    for (int sm : used) EXPECT_TRUE(mask_test(mask, sm)) << "item ran on SM " << sm << " outside the mask";
    EXPECT_GT(used.size(), static_cast<std::size_t>(half / 2))
        << "pinned work used too few of the mask's SMs";
    return;
  }
  SmidProbe probe(sms * 4);
  probe.launch(_p->stream(mask), 128, 50'000);
  const std::set<int> used = sms_of(probe.collect());
  // Green contexts do not say which SMs a group holds, so the check is the count (and the
  // co-run test below checks disjointness); libsmctrl TPC t holds SMs unit_sms*t .. +unit_sms-1.
  EXPECT_LE(static_cast<int>(used.size()), half * _p->unit_sms());
  if (_p->kind() == PartitionKind::libsmctrl) {
    for (int sm : used) EXPECT_TRUE(mask_test(mask, sm / _p->unit_sms())) << "block on SM " << sm;
  }
}

TEST_P(GpuPartition, DisjointPartitionsCoRunOnDisjointSms) {
  if (_p->cooperative())
    GTEST_SKIP() << "persistent-thread kernels pin themselves (pinned_for_each), the probe does not; "
                    "covered by BlocksStayInsideTheMask";
  const int half = _p->units() / 2;
  const gpurt_mask a = first_units(0, half);
  const gpurt_mask b = first_units(half, half);
  const int blocks = half * _p->unit_sms() * 2;
  {
    // A green context loads the probe's module on its first launch, which took longer than the
    // 2 ms kernel on an H200 (the second partition's blocks started 1.4 ms after the first's
    // ended): warm both up first.
    SmidProbe wa(1), wb(1);
    wa.launch(_p->stream(a), 32, 1'000);
    wb.launch(_p->stream(b), 32, 1'000);
    (void)wa.collect();
    (void)wb.collect();
  }
  SmidProbe pa(blocks), pb(blocks);
  pa.launch(_p->stream(a), 128, 2'000'000);  // 2 ms per block: long enough to overlap
  pb.launch(_p->stream(b), 128, 2'000'000);
  const auto ra = pa.collect();
  const auto rb = pb.collect();
  const std::set<int> sa = sms_of(ra), sb = sms_of(rb);
  for (int sm : sa) EXPECT_EQ(sb.count(sm), 0U) << "SM " << sm << " ran blocks of both partitions";
  const auto [a0, a1] =
      std::minmax_element(ra.begin(), ra.end(), [](auto& x, auto& y) { return x.start_ns < y.start_ns; });
  const std::uint64_t a_begin = a0->start_ns;
  std::uint64_t a_end = 0, b_begin = UINT64_MAX, b_end = 0;
  (void)a1;
  for (const auto& r : ra) a_end = std::max(a_end, r.end_ns);
  for (const auto& r : rb) {
    b_begin = std::min(b_begin, r.start_ns);
    b_end = std::max(b_end, r.end_ns);
  }
  EXPECT_LT(std::max(a_begin, b_begin), std::min(a_end, b_end))
      << "the partitions did not run at the same time";
}

TEST_P(GpuPartition, CachedSwitchIsALookup) {
  const gpurt_mask a = first_units(0, 1);
  const gpurt_mask b = first_units(1, 1);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  void* sa = _p->stream(a);
  void* sb = _p->stream(b);
  const auto created = Clock::now() - t0;
  const auto t1 = Clock::now();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(_p->stream(i % 2 == 0 ? a : b), i % 2 == 0 ? sa : sb);
  }
  const auto per_lookup = (Clock::now() - t1) / 1000;
  RecordProperty("create_two_ns", static_cast<int>(std::chrono::nanoseconds(created).count()));
  RecordProperty("lookup_ns", static_cast<int>(std::chrono::nanoseconds(per_lookup).count()));
  EXPECT_LT(per_lookup, std::chrono::microseconds(5));
  EXPECT_LE(_p->cached_streams(), 2);
}

// examiner configs give a partitioned instance a stream priority too (bench sm_mask + stream_priority).
TEST_P(GpuPartition, StreamsCarryTheirPriority) {
  const StreamPriorityRange range = stream_priority_range();
  const gpurt_mask m = first_units(0, 1);
  void* low = _p->stream(m, range.least);
  void* high = _p->stream(m, range.greatest);
  EXPECT_EQ(stream_priority(low), range.least);
  EXPECT_EQ(stream_priority(high), range.greatest);
  if (range.least != range.greatest) {
    EXPECT_NE(low, high);
  }
  EXPECT_EQ(_p->stream(m, range.greatest), high);  // cached per (units, priority)
  EXPECT_EQ(_p->stream(m), _p->stream(m, 0));
  // The priority stream keeps the partition (as BlocksStayInsideTheMask checks it).
  SmidProbe probe(_p->units() * 2);
  probe.launch(high, 64, 20'000);
  const std::set<int> used = sms_of(probe.collect());
  if (_p->cooperative()) return;  // a plain stream: the kernel would have to pin itself
  EXPECT_LE(static_cast<int>(used.size()), _p->unit_sms());
  if (_p->kind() == PartitionKind::libsmctrl) {
    for (int sm : used) EXPECT_EQ(sm / _p->unit_sms(), 0) << "block on SM " << sm;
  }
}

TEST_P(GpuPartition, RejectsEmptyAndOutOfRangeMasks) {
  EXPECT_THROW(_p->stream(gpurt_mask{}), PartitionError);
  EXPECT_THROW(_p->stream(first_units(_p->units(), 1)), PartitionError);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuPartition,
                         ::testing::Values(PartitionKind::green_context, PartitionKind::libsmctrl,
                                           PartitionKind::persistent_threads),
                         [](const ::testing::TestParamInfo<PartitionKind>& param) {
                           std::string n = to_string(param.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(PartitionBackends, ListsEveryBackendWithAReasonWhenUnavailable) {
  const auto list = partition_backends();
  ASSERT_EQ(list.size(), 4U);
  EXPECT_EQ(list[0].name, "green-context");
  EXPECT_EQ(list[1].name, "libsmctrl");
  EXPECT_EQ(list[2].name, "persistent-threads");
  EXPECT_EQ(list[3].name, "amd-cu-mask");
  for (const auto& b : list) {
    if (b.available) {
      EXPECT_GT(b.unit_sms * b.units, 0) << b.name;
    } else {
      EXPECT_FALSE(b.note.empty()) << b.name;
    }
  }
#ifndef GPURT_HAVE_CUDA
  EXPECT_EQ(list[0].note, "gpurt was built without CUDA (nvcc not found or -DGPURT_CUDA=OFF)");
  EXPECT_THROW(make_partitioner(PartitionKind::green_context), PartitionError);
  EXPECT_THROW(SmidProbe(4), PartitionError);
#endif
}

TEST(PartitionBackends, CheckUnitMask) {
  EXPECT_THROW(check_unit_mask(gpurt_mask{}, 4), PartitionError);
  EXPECT_THROW(check_unit_mask(first_units(3, 2), 4), PartitionError);
  EXPECT_NO_THROW(check_unit_mask(first_units(0, 4), 4));
}

// The performance model (sim/perf_model.*; docs/simulator.md "Performance model"): each mechanism
// by hand-computed block times, its wiring into the engine (localities of instances and tasks),
// the ideal model's exactness, determinism, and Lemma 2 surviving the calibrated FFT model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/model/cufft_model.hpp"
#include "gpurt/sim/fft_sim.hpp"
#include "gpurt/sim/perf_model.hpp"
#include "sim_helpers.hpp"

namespace gpurt {
namespace {

using sim::BlockStart;
using sim::PerfModel;

BlockStart block(int sm, int locality, double memory = 0, int span = 1) {
  return BlockStart{Nanos{1000}, sm, locality, span, memory};
}

TEST(PerfModel, IdealReturnsTheIsolatedTime) {
  PerfModel m(PerfParams{}, 2, 1, false);
  EXPECT_TRUE(m.ideal());
  EXPECT_EQ(m.start(block(0, 0)).count(), 1000);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);
}

TEST(PerfModel, SwitchCostOnlyWhenTheSmLastRanAnotherLocality) {
  PerfParams p;
  p.switch_cost = 0.5;
  PerfModel m(p, 2, 1, false);
  EXPECT_EQ(m.start(block(0, 7)).count(), 1000);  // first block on SM 0: nothing to switch from
  m.end(0, 7, 0);
  EXPECT_EQ(m.start(block(0, 7)).count(), 1000);  // same working set
  m.end(0, 7, 0);
  EXPECT_EQ(m.start(block(0, 8)).count(), 1500);  // another one: cold SM
  EXPECT_EQ(m.start(block(1, 7)).count(), 1000);  // SM 1 has its own history
}

TEST(PerfModel, CoresidenceCostWhileAnotherLocalityIsResident) {
  PerfParams p;
  p.coresidence_cost = 0.25;
  PerfModel m(p, 1, 1, false);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);  // same locality beside it
  EXPECT_EQ(m.start(block(0, 2)).count(), 1250);
  m.end(0, 2, 0);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);  // locality 2 has left
  m.end(0, 1, 0);
  m.end(0, 1, 0);
  m.end(0, 1, 0);
  EXPECT_EQ(m.start(block(0, 3)).count(), 1000);  // SM empty again
}

// The SM counts each locality's resident blocks: one of two locality-1 blocks ending leaves the
// other, so a locality-2 block starting then pays the co-residence (1000 · 1.25).
TEST(PerfModel, CoresidenceCountsEveryResidentBlockOfALocality) {
  PerfParams p;
  p.coresidence_cost = 0.25;
  PerfModel m(p, 1, 1, false);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);
  EXPECT_EQ(m.start(block(0, 1)).count(), 1000);
  m.end(0, 1, 0);
  EXPECT_EQ(m.start(block(0, 2)).count(), 1250);  // one locality-1 block still resident
  m.end(0, 1, 0);
  m.end(0, 2, 0);
  EXPECT_EQ(m.start(block(0, 2)).count(), 1000);  // both gone: nothing beside it
}

TEST(PerfModel, SpreadCostGrowsWithLog2OfTheSpan) {
  PerfParams p;
  p.spread_cost = 0.1;
  PerfModel m(p, 8, 1, false);
  EXPECT_EQ(m.start(block(0, 0, 0, 1)).count(), 1000);
  EXPECT_EQ(m.start(block(1, 0, 0, 4)).count(), 1200);  // 1 + 0.1·2
  EXPECT_EQ(m.start(block(2, 0, 0, 8)).count(), 1300);  // 1 + 0.1·3
}

TEST(PerfModel, AtStartTheMemoryPartStretchesByTheDemandAtTheBlocksStart) {
  PerfParams p;
  p.memory_bandwidth = 0.5;
  p.memory_sharing = MemorySharing::at_start;
  PerfModel m(p, 4, 1, false);
  EXPECT_EQ(m.start(block(0, 0, 0.5)).count(), 1000);   // demand 0.5 <= 0.5
  EXPECT_EQ(m.start(block(1, 0, 0.5)).count(), 1500);   // 0.5 + 0.5·(1.0 / 0.5)
  EXPECT_EQ(m.start(block(2, 0, 0.0)).count(), 1000);   // compute-bound: unaffected
  EXPECT_EQ(m.start(block(3, 0, 0.25)).count(), 1375);  // 0.75 + 0.25·(1.25 / 0.5)
  m.end(1, 0, 0.5);
  m.end(0, 0, 0.5);
  m.end(3, 0, 0.25);
  EXPECT_EQ(m.start(block(3, 0, 0.5)).count(), 1000);  // demand back to 0.5
}

TEST(PerfModel, JitterIsSeededBoundedAndMaximalInWorstCaseMode) {
  PerfParams p;
  p.jitter = 0.1;
  PerfModel a(p, 1, 42, false), b(p, 1, 42, false), c(p, 1, 43, false), w(p, 1, 42, true);
  bool differs = false;
  std::set<std::int64_t> seen;
  for (std::uint64_t i = 0; i < 200; ++i) {
    BlockStart k = block(0, 0);
    k.key = i;
    const auto x = a.start(k).count();
    EXPECT_EQ(x, b.start(k).count());  // same seed, same draws
    differs |= x != c.start(k).count();
    seen.insert(x);
    EXPECT_GE(x, 1000);
    EXPECT_LE(x, 1100);
    EXPECT_EQ(w.start(k).count(), 1100);
  }
  EXPECT_TRUE(differs);
  EXPECT_GT(seen.size(), 50u);  // the draws spread over the interval
  // A block's draw depends on its key, not on what was drawn before it: `a` drew 199 blocks
  // before key 199, a fresh model none.
  BlockStart k = block(0, 0);
  k.key = 199;
  BlockStart earlier = k;
  earlier.key = 199;
  PerfModel replay(p, 1, 42, false);
  for (std::uint64_t i = 0; i < 199; ++i) {
    BlockStart d = block(0, 0);
    d.key = i;
    replay.start(d);
  }
  EXPECT_EQ(replay.start(k).count(), PerfModel(p, 1, 42, false).start(earlier).count());
}

// kernel_jitter: one draw per kernel launch, shared by all its blocks whatever their keys, SMs or
// order; launches draw independently; bounded by [1, 1 + kernel_jitter]; the largest in worst-case
// mode; and a WCET block is scaled down by it like by every other draw.
TEST(PerfModel, KernelJitterIsOneDrawPerLaunchSharedByItsBlocks) {
  PerfParams p;
  p.kernel_jitter = 0.2;
  EXPECT_FALSE(p.blocks_ideal());
  PerfModel a(p, 4, 7, false), w(p, 4, 7, true);
  std::set<std::int64_t> per_launch;
  for (std::uint64_t launch = 0; launch < 100; ++launch) {
    std::set<std::int64_t> blocks;
    for (std::uint64_t i = 0; i < 8; ++i) {
      BlockStart k = block(static_cast<int>(i % 4), 0);
      k.kernel = launch;
      k.key = launch * 1'000'003 + i;
      const auto x = a.start(k).count();
      blocks.insert(x);
      EXPECT_GE(x, 1000);
      EXPECT_LE(x, 1200);
      EXPECT_EQ(w.start(k).count(), 1200);
    }
    EXPECT_EQ(blocks.size(), 1u) << "launch " << launch;  // its blocks share the draw
    per_launch.insert(*blocks.begin());
  }
  EXPECT_GT(per_launch.size(), 50u);  // launches draw independently over the interval
  // The draw depends on the seed and the launch alone, not on what was drawn before.
  BlockStart k = block(0, 0);
  k.kernel = 99;
  EXPECT_EQ(PerfModel(p, 4, 7, false).start(k).count(), a.start(k).count());
  PerfModel other(p, 4, 8, false), again(p, 4, 7, false);
  int differs = 0;
  for (std::uint64_t launch = 0; launch < 20; ++launch) {
    BlockStart l = block(0, 0);
    l.kernel = launch;
    differs += other.start(l).count() != again.start(l).count();
  }
  EXPECT_GT(differs, 10);  // another seed, other draws
  // A WCET of 1200 ns is the worst draw: with the draw 1 + u it runs 1200 (1 + u) / 1.2 ns.
  BlockStart c = k;
  c.isolated = Nanos{1200};
  c.wcet = true;
  EXPECT_EQ(PerfModel(p, 4, 7, true).start(c).count(), 1200);
  const std::int64_t scaled = PerfModel(p, 4, 7, false).start(c).count(), plain = a.start(k).count();
  EXPECT_LE(std::abs(scaled - plain), 1);  // floor vs ceil
}

// A WCET block (BlockStart::wcet: the time the profiler measured in worst-case mode) holds the worst
// of every mechanism, so the model divides each worst factor back out and multiplies by what this
// block actually meets. Hand-computed with switch 0.35, coresidence 0.1 and the draws at their
// largest (worst-case mode): the block that meets everything runs its WCET; the first block on an
// idle SM (no switch, no neighbour) runs 10000 / (1.35 · 1.1) = 6734.0 ns, floored; one that meets
// the switch alone 10000 / 1.1 = 9090.9 → 9090. Without dividing out the switch cost the first
// would run 9090 and the second 10000: the switch the WCET already holds charged again.
TEST(PerfModel, WcetBlocksDivideEveryWorstFactorOut) {
  PerfParams p;
  p.switch_cost = 0.35;
  p.coresidence_cost = 0.1;
  p.jitter = 0.05;
  p.kernel_jitter = 0.02;
  PerfModel m(p, 2, 3, true);
  BlockStart b = block(0, 1);
  b.isolated = Nanos{10'000};
  b.wcet = true;
  EXPECT_EQ(m.start(b).count(), 6734);  // SM 0 idle, nothing run before
  m.end(0, 1, 0);
  BlockStart other = b;
  other.locality = 2;
  EXPECT_EQ(m.start(other).count(), 9090);  // SM 0 last ran locality 1: the switch, no neighbour
  BlockStart third = b;
  third.locality = 3;
  EXPECT_EQ(m.start(third).count(), 10'000);  // switch and locality 2 resident: the worst case
}

// The spread factor of a WCET block cancels (it is known exactly, the same in the profile and
// here): span 4 with spread_cost 0.1 (1.2) and switch_cost 1, the first block on an idle SM runs
// 10000 · 1.2 / (2 · 1.2) = 5000 ns; without the spread in the divisor, 10000 · 1.2 / 2 = 6000.
// Memory bandwidth never charges a WCET block (its profile ran it alone): with bandwidth 0.5 a
// plain block of memory fraction 0.5 runs 1000 ns, and a WCET block of fraction 0.5 beside it,
// demand 1.0, runs 10000 / 2 = 5000 ns (switch divided out, no switch met), not 10000 · 1.5 / 2.
TEST(PerfModel, WcetBlocksCancelTheSpreadAndSkipTheBandwidth) {
  PerfParams p;
  p.switch_cost = 1;
  p.spread_cost = 0.1;
  PerfModel m(p, 2, 3, true);
  BlockStart b = block(0, 1, 0, 4);
  b.isolated = Nanos{10'000};
  b.wcet = true;
  EXPECT_EQ(m.start(b).count(), 5000);
  PerfParams q;
  q.switch_cost = 1;
  q.memory_bandwidth = 0.5;
  q.memory_sharing = MemorySharing::at_start;
  PerfModel n(q, 2, 3, true);
  EXPECT_EQ(n.start(block(0, 1, 0.5)).count(), 1000);
  BlockStart w = block(1, 1, 0.5);
  w.isolated = Nanos{10'000};
  w.wcet = true;
  EXPECT_EQ(n.start(w).count(), 5000);
}

// In the engine a launch's blocks share one kernel_jitter draw: a 4-block kernel on 4 SMs has
// four equal block times, and the next iteration's launch draws again.
TEST(PerfModel, EngineGivesEveryBlockOfALaunchItsKernelsDraw) {
  Platform p = *find_platform_preset("jetson-tx2");
  p.sms = 4;
  p.max_threads = 1024;
  p.model.kernel_jitter = 0.5;
  const std::string config = R"({"name": "kj", "max_iterations": 6, "max_time": 0,
    "benchmarks": [{"filename": "timer_spin.so", "log_name": "a.json", "label": "A",
      "thread_count": 1024, "block_count": 4, "additional_info": 1000000}]})";
  const SimResult r = test::run_text(config, p);
  std::set<std::int64_t> launches;
  int kernels = 0;
  for (const auto& inst : r.trace.instances)
    for (const auto& it : inst.iterations)
      for (const auto& kr : it.kernels) {
        ++kernels;
        ASSERT_EQ(kr.blocks.size(), 4u);
        const auto d = (kr.blocks[0].end - kr.blocks[0].start).count();
        EXPECT_GE(d, 1'000'000);
        EXPECT_LE(d, 1'500'000);
        for (const auto& b : kr.blocks) EXPECT_EQ((b.end - b.start).count(), d);
        launches.insert(d);
      }
  EXPECT_EQ(kernels, 6);
  EXPECT_GT(launches.size(), 3u);  // six launches, six draws (equal ones would be a 1e-6 chance)
}

// Two instances on a one-SM GPU whose SM holds one block at a time: the second instance's block
// runs on an SM that last ran the first instance's (instances are localities in configs).
TEST(PerfModel, EngineChargesTheSwitchBetweenInstancesNotWithinOne) {
  Platform p = *find_platform_preset("jetson-tx2");
  p.sms = 1;
  p.max_threads = 1024;
  p.model.switch_cost = 0.5;
  const std::string config = R"({"name": "switch", "max_iterations": 2, "max_time": 0,
    "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 2, "data_size": 0, "additional_info": 1000000},
      {"filename": "timer_spin.so", "log_name": "b.json", "label": "B", "thread_count": 1024,
       "block_count": 1, "data_size": 0, "additional_info": 1000000, "release_time": 0.0001}]})";
  const SimResult r = test::run_text(config, p);
  const KernelRecord& a = test::kernel(r, "A");
  const KernelRecord& b = test::kernel(r, "B");
  ASSERT_EQ(a.blocks.size(), 2u);
  EXPECT_EQ((a.blocks[0].end - a.blocks[0].start).count(), 1'000'000);  // first block on the SM
  EXPECT_EQ((a.blocks[1].end - a.blocks[1].start).count(), 1'000'000);  // same instance after it
  EXPECT_EQ((b.blocks[0].end - b.blocks[0].start).count(), 1'500'000);  // after A's blocks
  // The same config on the ideal model, by option and by the config's gpurt_sim.model.
  SimulateOptions ideal;
  ideal.ideal_model = true;
  const SimResult i = test::run_text(config, p, ideal);
  EXPECT_EQ((test::kernel(i, "B").blocks[0].end - test::kernel(i, "B").blocks[0].start).count(), 1'000'000);
  std::string with_key = config;
  with_key.insert(with_key.find("\"max_iterations\""), R"("gpurt_sim": {"model": "ideal"}, )");
  const SimResult k = test::run_text(with_key, p);
  EXPECT_EQ((test::kernel(k, "B").blocks[0].end - test::kernel(k, "B").blocks[0].start).count(), 1'000'000);
}

// Fluid sharing by hand, through the model's protocol with the engine (advance to each instant,
// start and end blocks, reschedule, take the blocks an end event finds done), with bandwidth 1:
// - A (1000 ns, fraction 1) from 0 and B (the same) from 500: alone A does 500 by 500, then each
//   runs at half speed, so A's last 500 take until 1500; B has 500 done then, and alone again it
//   ends at 2000. Judged at each start, A would end at 1000 and B (demand 2) at 2500.
// - A (fraction 1) and B (fraction 0.5), both 1000 ns from 0: demand 1.5, so A runs at
//   1/1.5 and B at 1/(0.5 + 0.5·1.5) = 0.8: B ends at 1250, when A has done 833.3; alone, A's
//   last 166.7 end at 1417 (rounded up to the nanosecond).
struct FluidRun {
  explicit FluidRun(double bandwidth) : model(params(bandwidth), 8, 1, false) {}
  static PerfParams params(double bandwidth) {
    PerfParams p;
    p.memory_bandwidth = bandwidth;
    return p;
  }
  void start(std::int64_t at, int op, double memory, std::int64_t isolated = 1000) {
    run_until(at);
    BlockStart b = block(op, op, memory);
    b.isolated = Nanos{isolated};
    ASSERT_TRUE(model.fluid(b));
    model.start_fluid(b, sim::FluidBlock{op, op, -1, Nanos{at}});
    instant_done(at);
  }
  void instant_done(std::int64_t at) {
    if (model.fluid_dirty()) model.reschedule(Nanos{at});
  }
  // Takes every fluid end up to `until` as the engine does.
  void run_until(std::int64_t until) {
    while (model.next_end().count() >= 0 && model.next_end().count() <= until) {
      const Nanos at = model.next_end();
      model.advance(at);
      std::vector<sim::FluidBlock> done;
      model.take_due(at, done);
      for (const auto& f : done) {
        ends.emplace_back(f.op, at.count());
        model.end(f.sm, f.op, f.op == 1 ? memory_b : 1.0);
      }
      instant_done(at.count());
    }
    model.advance(Nanos{until});
  }
  PerfModel model;
  double memory_b = 1.0;
  std::vector<std::pair<int, std::int64_t>> ends;  ///< (op, end time)
};

TEST(PerfModel, FluidSharingReSharesTheBandwidthAtEveryStartAndEnd) {
  FluidRun late(1);
  late.start(0, 0, 1.0);
  late.start(500, 1, 1.0);
  late.run_until(1'000'000);
  EXPECT_EQ(late.ends, (std::vector<std::pair<int, std::int64_t>>{{0, 1500}, {1, 2000}}));

  FluidRun mixed(1);
  mixed.memory_b = 0.5;
  mixed.start(0, 0, 1.0);
  mixed.start(0, 1, 0.5);
  mixed.run_until(1'000'000);
  EXPECT_EQ(mixed.ends, (std::vector<std::pair<int, std::int64_t>>{{1, 1250}, {0, 1417}}));

  // Within the bandwidth a fluid block runs its time exactly, as judged at its start.
  FluidRun within(2);
  within.start(0, 0, 1.0, 777);
  within.start(0, 1, 1.0, 900);
  within.run_until(1'000'000);
  EXPECT_EQ(within.ends, (std::vector<std::pair<int, std::int64_t>>{{0, 777}, {1, 900}}));

  // Also after contention has left its group's clock fractional: bandwidth 2.5; B (1 ms) and two
  // A blocks (1001 ns) from 0, demand 3, so the A blocks run at 2.5/3 and end at 1201.2, rounded
  // up to 1202, the clock then at 1001.67; C (1000 ns) from 32 us meets demand 2 and runs exactly
  // 1000 ns (the clock's rounding once made it 1001); B, at speed 1 from 1202, ends at
  // 1202 + 10^6 - 1001.67, rounded up.
  FluidRun rounded(2.5);
  rounded.start(0, 0, 1.0, 1'000'000);
  rounded.start(0, 2, 1.0, 1001);
  rounded.start(0, 3, 1.0, 1001);
  rounded.start(32'000, 4, 1.0, 1000);
  rounded.run_until(2'000'000);
  EXPECT_EQ(rounded.ends,
            (std::vector<std::pair<int, std::int64_t>>{{2, 1202}, {3, 1202}, {4, 33'000}, {0, 1'000'201}}));

  // And on a clock far from 0: A runs 3·10^14 ns (300,000 s), B 1000 ns from 290,000 s, within
  // the bandwidth: each exactly its time.
  FluidRun far(2);
  far.start(0, 0, 1.0, 300'000'000'000'000);
  far.start(290'000'000'000'000, 1, 1.0, 1000);
  far.run_until(400'000'000'000'000);
  EXPECT_EQ(far.ends,
            (std::vector<std::pair<int, std::int64_t>>{{1, 290'000'000'001'000}, {0, 300'000'000'000'000}}));
}

// Fluid sharing with the AMD wavefront release: a block's early steps come back from the model at
// the same points of its work as the fixed-time path schedules them. One block of fraction 1,
// 1000 ns alone, bandwidth 0.5 with nothing else running (its own demand 1: half speed, 2000 ns),
// wave_release 0.5 and three early steps: its work less 500 · 3/3, 2/3, 1/3 truncated (500, 333,
// 166), so at 500, 667 and 834 of its 1000 ns of work, at 1000, 1334 and 1668 ns, and the end at
// 2000. Each comes back with the sequence number its fixed-time event would take: 40 + k, the end
// 43.
TEST(PerfModel, FluidBlocksReleaseTheirWavefrontsAtTheirWorksFractions) {
  PerfParams p;
  p.memory_bandwidth = 0.5;
  p.wave_release = 0.5;
  PerfModel m(p, 1, 1, false);
  BlockStart b = block(0, 0, 1.0);
  ASSERT_TRUE(m.fluid(b));
  m.start_fluid(b, sim::FluidBlock{7, 0, -1, Nanos{0}, -1, 40}, 3);
  std::vector<std::pair<int, std::int64_t>> seen;  // (step, time)
  m.reschedule(Nanos{0});
  for (int round = 0; round < 10 && m.next_end().count() >= 0; ++round) {
    const Nanos at = m.next_end();
    m.advance(at);
    std::vector<sim::FluidBlock> done;
    m.take_due(at, done);
    for (const auto& f : done) {
      EXPECT_EQ(f.op, 7);
      EXPECT_EQ(f.seq, f.step >= 0 ? 40u + static_cast<std::uint64_t>(f.step) : 43u);
      seen.emplace_back(f.step, at.count());
    }
    EXPECT_TRUE(m.fluid_dirty());  // a step changes no demand, yet the next needs its end
    m.reschedule(at);
  }
  EXPECT_EQ(seen, (std::vector<std::pair<int, std::int64_t>>{{0, 1000}, {1, 1334}, {2, 1668}, {-1, 2000}}));
}

// The block starts, ends and SMs of `config` on `p`, and the events handled.
std::pair<std::vector<std::int64_t>, std::uint64_t> block_times(const std::string& config,
                                                                const Platform& p) {
  std::vector<std::int64_t> out;
  const SimResult r = test::run_text(config, p);
  for (const auto& inst : r.trace.instances)
    for (const auto& it : inst.iterations)
      for (const auto& k : it.kernels)
        for (const auto& b : k.blocks) out.insert(out.end(), {b.start.count(), b.end.count(), b.sm});
  return {out, r.stats.events};
}

// Where the demand never exceeds the bandwidth, fluid sharing changes nothing: with a bandwidth
// no demand reaches, `config` on `p` gives the same block starts, ends and SMs, and handles as
// many events, under either sharing.
void expect_fluid_changes_nothing(const std::string& config, Platform p) {
  p.model.memory_bandwidth = 1e6;
  p.model.memory_sharing = MemorySharing::at_start;
  const auto [at_start, at_start_events] = block_times(config, p);
  p.model.memory_sharing = MemorySharing::fluid;
  const auto [fluid, fluid_events] = block_times(config, p);
  EXPECT_EQ(fluid_events, at_start_events);
  ASSERT_EQ(fluid.size(), at_start.size());
  const auto differ = static_cast<std::size_t>(
      (std::mismatch(fluid.begin(), fluid.end(), at_start.begin()).first - fluid.begin()) / 3 * 3);
  EXPECT_EQ(differ, fluid.size()) << "block " << differ / 3 << " (start, end) differs: fluid "
                                  << fluid[differ] << ", " << fluid[differ + 1] << ", at_start "
                                  << at_start[differ] << ", " << at_start[differ + 1];
}

// Also on the AMD path with its wavefront release: Table 4.1's MM1024 vs MM256 under full
// sharing, the kernels declaring memory fractions 0.5 and 0.3 (two fluid groups, whose blocks
// end in one instant in the order they started), on the radeon-vii preset: each early wavefront
// step at the same nanosecond too, or the next blocks would start elsewhere or later.
TEST(PerfModel, FluidSharingWithinTheBandwidthChangesNothingOnTheAmdPath) {
  std::string config =
      read_text_file(std::string(GPURT_SOURCE_DIR) + "/examples/amd/mm1024_vs_mm256_full.json");
  const char* fractions[] = {"0.5", "0.3"};
  std::size_t at = 0;
  for (const char* f : fractions) {
    at = config.find("\"additional_info\"", at);
    ASSERT_NE(at, std::string::npos);
    config.insert(at, fmt::format(R"("gpurt_sim": {{"memory_fraction": {}}}, )", f));
    at += 60;
  }
  config.replace(config.find("\"max_time\": 0.5,"), 17, R"("max_time": 0.05,)");
  EXPECT_GT(block_times(config, *find_platform_preset("radeon-vii")).first.size(), 3u * 4096);
  expect_fluid_changes_nothing(config, *find_platform_preset("radeon-vii"));
}

// And where a fluid end meets host events in one instant: a one-block kernel that ends as its
// launch call returns (launch_call_ns = its time); its host then synchronises, paying
// sync_latency_ns, since the kernel's end comes after the call's return in sequence order, as a
// fixed-time end would. Three iterations of 2 us each: the run ends at 6 us.
TEST(PerfModel, FluidEndsTakeTheirTurnAmongTheInstantsEvents) {
  const std::string config = R"({"name": "sync", "max_iterations": 3, "max_time": 0,
    "gpurt_sim": {"launch_call_ns": 1000, "sync_latency_ns": 1000}, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "k.json", "label": "K", "thread_count": 128, "block_count": 1,
       "additional_info": 1000, "gpurt_sim": {"memory_fraction": 0.5}}]})";
  Platform p = *find_platform_preset("h200");
  p.model.memory_sharing = MemorySharing::fluid;
  const SimResult r = test::run_text(config, p);
  EXPECT_EQ(r.stats.end_time.count(), 6000);
  expect_fluid_changes_nothing(config, p);
}

// A config's kernels feel bandwidth contention through the memory fraction their benchmark
// declares: 4 SMs holding one 1,024-thread block each, bandwidth 2 (fully memory-bound SMs). With
// fraction 1 the demand is 4, twice the bandwidth: under fluid sharing every block runs at half
// speed (each 2 ms); judged at each start (at_start) the k-th block to start sees demand k, so
// blocks 3 and 4 run 3/2 and 4/2 times longer. Either way the kernel ends at 2 ms. With 0.5 the
// demand reaches only 2 (no block slows); timer_spin declares nothing (0).
TEST(PerfModel, ConfigsDeclareTheMemoryFractionBandwidthActsOn) {
  Platform p = *find_platform_preset("jetson-tx2");
  p.sms = 4;
  p.max_threads = 1024;
  p.model.memory_bandwidth = 2;
  const auto last_end_ms = [&](const std::string& declared) {
    const std::string config = R"({"name": "mem", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 4, "additional_info": 1000000)" +
                               declared + "}]}";
    return test::s(test::kernel(test::run_text(config, p), "A").blocks.back().end) * 1e3;
  };
  EXPECT_DOUBLE_EQ(last_end_ms(R"(, "gpurt_sim": {"memory_fraction": 1})"), 2.0);
  const SimResult full = test::run_text(R"({"name": "mem", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 4, "additional_info": 1000000, "gpurt_sim": {"memory_fraction": 1}}]})",
                                        p);
  const auto durations = [](const SimResult& r) {
    std::vector<std::int64_t> out;
    for (const auto& b : test::kernel(r, "A").blocks) out.push_back((b.end - b.start).count());
    return out;
  };
  EXPECT_EQ(durations(full), (std::vector<std::int64_t>{2'000'000, 2'000'000, 2'000'000, 2'000'000}));
  EXPECT_DOUBLE_EQ(last_end_ms(R"(, "gpurt_sim": {"memory_fraction": 0.5})"), 1.0);
  EXPECT_DOUBLE_EQ(last_end_ms(""), 1.0);
  p.model.memory_sharing = MemorySharing::at_start;
  EXPECT_DOUBLE_EQ(last_end_ms(R"(, "gpurt_sim": {"memory_fraction": 1})"), 2.0);
  const SimResult at_start =
      test::run_text(R"({"name": "mem", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 4, "additional_info": 1000000, "gpurt_sim": {"memory_fraction": 1}}]})",
                     p);
  EXPECT_EQ(durations(at_start), (std::vector<std::int64_t>{1'000'000, 1'000'000, 1'500'000, 2'000'000}));
}

// Through the engine, from a config: kernel A (one 1 ms block, memory fraction 1) from 0 and B
// (the same) released at 0.5 ms, bandwidth 1 on 4 SMs: A ends at 1.5 ms and B at 2 ms (the first
// case of FluidSharingReSharesTheBandwidthAtEveryStartAndEnd, in milliseconds). The busy time
// counts each block's real time.
TEST(PerfModel, EngineSharesBandwidthFluidlyBetweenKernels) {
  Platform p = *find_platform_preset("jetson-tx2");
  p.sms = 4;
  p.max_threads = 1024;
  p.model.memory_bandwidth = 1;
  const SimResult r = test::run_text(R"({"name": "fluid", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 1, "additional_info": 1000000, "gpurt_sim": {"memory_fraction": 1}},
      {"filename": "timer_spin.so", "log_name": "b.json", "label": "B", "thread_count": 1024,
       "block_count": 1, "additional_info": 1000000, "release_time": 0.0005, "gpurt_sim": {"memory_fraction": 1}}]})",
                                     p);
  const auto& a = test::kernel(r, "A").blocks.at(0);
  const auto& b = test::kernel(r, "B").blocks.at(0);
  EXPECT_EQ(a.start.count(), 0);
  EXPECT_EQ(a.end.count(), 1'500'000);
  EXPECT_EQ(b.start.count(), 500'000);
  EXPECT_EQ(b.end.count(), 2'000'000);
  EXPECT_DOUBLE_EQ(r.stats.busy_thread_time, (1.5e6 + 1.5e6) * 1024);
}

// A run cut at a horizon counts a still-running fluid block's busy time to the end the speeds of
// its last instant give, as a fixed-time block counts its whole time at its start: two 1 ms
// blocks of fraction 1 from 0 on 4 SMs with bandwidth 1, cut at 0.5 ms. Fluid: each at half
// speed would end at 2 ms, 2 x 2 ms x 1,024 threads. Judged at each start: 1 ms and 2 ms.
TEST(PerfModel, AHorizonCountsRunningFluidBlocksToTheirProjectedEnds) {
  Platform p = *find_platform_preset("jetson-tx2");
  p.sms = 4;
  p.max_threads = 1024;
  p.model.memory_bandwidth = 1;
  const std::string config = R"({"name": "cut", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": 1024,
       "block_count": 2, "additional_info": 1000000, "gpurt_sim": {"memory_fraction": 1}}]})";
  SimulateOptions o;
  o.horizon = Nanos{500'000};
  EXPECT_DOUBLE_EQ(test::run_text(config, p, o).stats.busy_thread_time, 2 * 2e6 * 1024);
  p.model.memory_sharing = MemorySharing::at_start;
  EXPECT_DOUBLE_EQ(test::run_text(config, p, o).stats.busy_thread_time, (1e6 + 2e6) * 1024);
}

TEST(PerfModel, PlatformModelSectionIsReadStrictly) {
  const Json good = parse_json(
      R"({"preset": "h100", "model": {"switch_cost": 0.2, "jitter": 0.01, "kernel_jitter": 0.03}})",
      "p.json");
  const Platform p = parse_platform(JsonNode(good, "p.json"));
  EXPECT_DOUBLE_EQ(p.model.switch_cost, 0.2);
  EXPECT_DOUBLE_EQ(p.model.jitter, 0.01);
  EXPECT_DOUBLE_EQ(p.model.kernel_jitter, 0.03);
  EXPECT_EQ(parse_platform(JsonNode(parse_json(to_json(p).dump(), "q.json"), "q.json")).model, p.model);
  // Over a preset the section changes only the keys it names: the radeon-vii preset's lock,
  // lone bound and launch draw stay.
  const Platform over = parse_platform(JsonNode(
      parse_json(R"({"preset": "radeon-vii", "model": {"wave_release": 0.5}})", "v.json"), "v.json"));
  PerfParams want = find_platform_preset("radeon-vii")->model;
  ASSERT_NE(want.wave_release, 0.5);
  ASSERT_GT(want.cu_lock_threshold, 0);
  want.wave_release = 0.5;
  EXPECT_EQ(over.model, want);
  // Every field survives the file's round trip, the limits of the ranges included.
  Platform all = *find_platform_preset("radeon-vii");
  all.model = PerfParams{0.1, 0.2, 0.3, 1e6, MemorySharing::at_start, 0.4, 0.5, 4096, 7, 9, 0.6, 12, 511};
  EXPECT_EQ(parse_platform(JsonNode(parse_json(to_json(all).dump(), "r.json"), "r.json")).model, all.model);
  // Out of range, per key: the AMD dispatch rules on the radeon-vii (on an NVIDIA GPU they are
  // refused whatever their value, below, so a range check there would go untested).
  const std::pair<const char*, const char*> bad[] = {{"jitter", "-0.1"},
                                                     {"switch", "0.1"},
                                                     {"kernel_jitter", "101"},
                                                     {"memory_bandwidth", "\"x\""},
                                                     {"memory_bandwidth", "-1"},
                                                     {"memory_bandwidth", "2e6"},
                                                     {"memory_bandwidth", "1e-300"},
                                                     {"memory_sharing", "\"both\""},
                                                     {"memory_sharing", "1"},
                                                     {"host_cores", "1.5"},
                                                     {"host_cores", "-1"},
                                                     {"host_cores", "4097"},
                                                     {"host_slice_us", "-1"},
                                                     {"host_slice_us", "2e6"},
                                                     {"block_dispatch_ns", "-1"},
                                                     {"block_dispatch_ns", "2e9"},
                                                     {"wave_release", "1"},
                                                     {"cu_lock_threshold", "2.5"},
                                                     {"lone_kernel_blocks", "2e9"}};
  for (const auto& [key, value] : bad) {
    const std::string text = fmt::format(R"({{"preset": "radeon-vii", "model": {{"{}": {}}}}})", key, value);
    const Json doc = parse_json(text, "p.json");
    EXPECT_THROW(parse_platform(JsonNode(doc, "p.json")), InputError) << text;
  }
  // The AMD dispatch rules on an NVIDIA GPU (or an AMD one without shader engines) would change
  // nothing: refused, naming the key.
  for (const char* key : {"wave_release", "block_dispatch_ns", "cu_lock_threshold", "lone_kernel_blocks"}) {
    const std::string text = fmt::format(R"({{"preset": "h100", "model": {{"{}": {}}}}})", key,
                                         key == std::string("wave_release") ? "0.5" : "1");
    const Json doc = parse_json(text, "p.json");
    try {
      parse_platform(JsonNode(doc, "p.json"));
      ADD_FAILURE() << key << " accepted on the h100";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("model.") + key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("only on an AMD GPU"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_platform(JsonNode(
                   parse_json(R"({"preset": "radeon-vii", "shader_engines": 0})", "p.json"), "p.json")),
               InputError);
  try {
    const Json doc = parse_json(R"({"preset": "h100", "model": {"jitter": -0.1}})", "p.json");
    parse_platform(JsonNode(doc, "p.json"));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.jitter"), std::string::npos) << e.what();
  }
}

// Lemma 2 (FFT/SMLP) survives the calibrated model: the profile runs the model in worst-case
// mode, so no SMLP job of the experiment exceeds the bound from that profile, at any N.
TEST(PerfModel, CalibratedFftProfileBoundsEveryExperimentJob) {
  const Platform p = *find_platform_preset("rtx3060ti");
  ASSERT_FALSE(p.model.ideal());
  CufftShape shape;
  shape.log2_size = 22;
  const auto kernels = cufft_kernels(shape, p);
  std::vector<Nanos> wcet;
  for (int k = 1; k <= p.units(); ++k) {
    FftProfileRunOptions o;
    o.kernels = kernels;
    o.units = k;
    o.runs = 3;
    const auto runs = simulate_fft_profile_runs(p, o);
    wcet.push_back(*std::max_element(runs.begin(), runs.end()));
  }
  for (int n : {2, 7, 13, 21}) {
    SmlpSystem system;
    system.platform = p;
    for (int i = 0; i < n; ++i) system.tasks.push_back(SmlpTask{"fft", wcet, {}, {}, {}});
    const SmlpResult bound = analyse_smlp(system);
    FftTasksOptions t;
    t.tasks = n;
    t.jobs = 10;
    t.kernels = kernels;
    t.allowed = bound.tasks.front().allowed_units;
    t.seed = static_cast<std::uint64_t>(n);
    const FftTasksResult r = simulate_fft_tasks(p, t);
    for (Nanos x : r.responses) EXPECT_LE(x, bound.tasks.front().response_bound) << "N = " << n;
  }
}

}  // namespace
}  // namespace gpurt

// Soundness check of the RTGPU bounds against a small model-level schedule generator that lives
// in this test only (the real block-level simulator is the `sim` layer's job): preemptive
// fixed-priority CPU, non-preemptive fixed-priority bus, GPU segments on the task's own SMs
// with a duration in Lemma 5.1's range, sporadic releases, segment lengths drawn in [lo, hi].
// Every observed response time of a task the analysis accepts must be <= its bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <limits>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"

namespace gpurt {
namespace {

enum class Kind { cpu, copy, gpu };

struct Job {
  Nanos release{0};
  std::size_t segment = 0;  // index into the task's Plan
  Nanos remaining{0};
  bool on_bus = false;
  bool issued = false;  // busy waiting: a copy or kernel starts only once the job held the CPU
};

struct TaskState {
  std::vector<Nanos> releases;  // pending, ascending
  std::size_t next_release = 0;
  std::optional<Job> job;
  Nanos worst{0};
};

Nanos draw(Rng& rng, TimeBounds b) { return Nanos{rng.uniform_int(b.lo.count(), b.hi.count())}; }

// One job's segments in order. `copy` steps take the shared non-preemptive resource: the bus
// (rtgpu) or the whole-GPU device (self-suspension: copy + kernel + copy as one step).
struct Step {
  Kind kind;
  TimeBounds length;
};
using Plan = std::vector<Step>;

Plan plan_of(const RtgpuTask& t, const std::vector<TimeBounds>& gpu, bool merged) {
  Plan p{{Kind::cpu, t.cpu[0]}};
  for (std::size_t q = 0; q < gpu.size(); ++q) {
    const TimeBounds in = t.copy[2 * q], out = t.copy[2 * q + 1];
    if (merged) {
      p.push_back({Kind::copy, {in.lo + gpu[q].lo + out.lo, in.hi + gpu[q].hi + out.hi}});
    } else {
      p.push_back({Kind::copy, in});
      p.push_back({Kind::gpu, gpu[q]});
      p.push_back({Kind::copy, out});
    }
    p.push_back({Kind::cpu, t.cpu[q + 1]});
  }
  return p;
}

// Runs the schedule up to `horizon`; returns each task's largest observed response time.
// busy_wait (STGM): the highest-priority job with work left holds the CPU whatever its
// segment; a copy or kernel is issued only while its job holds the CPU, then runs on the bus
// (non-preemptive) or its own SMs even if the job is preempted meanwhile.
std::vector<Nanos> simulate(const RtgpuSystem& s, const std::vector<Plan>& plans, Rng& rng, Nanos horizon,
                            bool busy_wait) {
  const std::size_t n = s.tasks.size();
  std::vector<TaskState> st(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Nanos period = s.tasks[i].period;
    Nanos r{rng.uniform_int(0, period.count() / 2)};
    while (r < horizon) {
      st[i].releases.push_back(r);
      r += period + (rng.uniform01() < 0.3 ? Nanos{rng.uniform_int(0, period.count() / 3)} : Nanos{0});
    }
  }
  const auto order = priority_order(s);
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t bus = kNone;  // task whose copy holds the bus
  Nanos now{0};
  for (;;) {
    // Start jobs, then step through zero-length segments; finished jobs record their response.
    for (std::size_t i = 0; i < n; ++i) {
      TaskState& x = st[i];
      const std::size_t last = plans[i].size() - 1;
      for (;;) {
        if (!x.job) {
          if (x.next_release >= x.releases.size() || x.releases[x.next_release] > now) break;
          x.job = Job{x.releases[x.next_release++], 0, draw(rng, plans[i][0].length), false, false};
        }
        if (x.job->remaining > Nanos{0}) break;
        if (x.job->on_bus) bus = kNone;
        if (x.job->segment == last) {
          x.worst = std::max(x.worst, now - x.job->release);
          x.job.reset();
          continue;
        }
        ++x.job->segment;
        x.job->on_bus = false;
        x.job->issued = false;
        x.job->remaining = draw(rng, plans[i][x.job->segment].length);
      }
    }
    bool pending = false;
    for (const TaskState& x : st) pending = pending || x.job || x.next_release < x.releases.size();
    if (!pending) break;
    // CPU: preemptive; the highest-priority job in a CPU segment runs (busy waiting: the
    // highest-priority job with work left, which issues its pending copy or kernel).
    std::size_t cpu = kNone;
    for (std::size_t i : order) {
      if (st[i].job && (busy_wait || plans[i][st[i].job->segment].kind == Kind::cpu)) {
        cpu = i;
        if (busy_wait) st[i].job->issued = true;
        break;
      }
    }
    // Bus: non-preemptive; when free, the highest-priority waiting copy takes it.
    if (bus == kNone) {
      for (std::size_t i : order) {
        if (st[i].job && plans[i][st[i].job->segment].kind == Kind::copy &&
            (!busy_wait || st[i].job->issued)) {
          bus = i;
          st[i].job->on_bus = true;
          break;
        }
      }
    }
    Nanos next = Nanos::max();
    for (const TaskState& x : st) {
      if (x.next_release < x.releases.size()) next = std::min(next, x.releases[x.next_release]);
    }
    auto progressing = [&](std::size_t i) {
      const Kind k = plans[i][st[i].job->segment].kind;
      return (k == Kind::gpu && (!busy_wait || st[i].job->issued)) || (k == Kind::cpu && cpu == i) ||
             (k == Kind::copy && bus == i);
    };
    for (std::size_t i = 0; i < n; ++i) {
      if (st[i].job && progressing(i)) next = std::min(next, now + st[i].job->remaining);
    }
    const Nanos dt = next - now;
    for (std::size_t i = 0; i < n; ++i) {
      if (st[i].job && progressing(i)) st[i].job->remaining -= dt;
    }
    now = next;
  }
  std::vector<Nanos> worst;
  for (const TaskState& x : st) worst.push_back(x.worst);
  return worst;
}

void check(RtgpuMethod method, std::uint64_t seed) {
  const bool merged = method == RtgpuMethod::self_suspension;
  Rng rng(seed);
  int checked = 0, tasks = 0;
  double tightness = 0, sum_ratio = 0;
  for (int trial = 0; trial < 300; ++trial) {
    RtgpuTable1Options o;
    o.tasks = static_cast<int>(rng.uniform_int(2, 4));
    o.subtasks = static_cast<int>(rng.uniform_int(1, 4));
    o.physical_sms = static_cast<int>(rng.uniform_int(o.tasks, 10));
    o.utilization = rng.uniform(0.2, 1.2);
    o.two_copies = rng.uniform01() < 0.5;
    o.suspension_scale = rng.uniform(0.5, 4.0);
    o.lower_fraction = rng.uniform(0.3, 1.0);
    const RtgpuSystem s = generate_rtgpu_table1(rng, o);
    const RtgpuResult r = analyse_rtgpu(s, {method, RtgpuSearch::exact});
    if (!r.schedulable) continue;
    std::vector<Plan> plans;
    Nanos longest{0};
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      // bounds.gpu is Lemma 5.1 for the reported allocation (self-suspension: the whole GPU).
      plans.push_back(plan_of(s.tasks[i], r.tasks[i].bounds.gpu, merged));
      longest = std::max(longest, s.tasks[i].period);
    }
    const std::vector<Nanos> worst = simulate(s, plans, rng, 30 * longest, method == RtgpuMethod::stgm);
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      const Nanos bound = *r.tasks[i].bounds.response;
      ASSERT_LE(worst[i], bound) << to_string(method) << " trial " << trial << " task " << s.tasks[i].name
                                 << "\n"
                                 << to_json(s).dump();
      ASSERT_GE(worst[i], r.tasks[i].bounds.lower) << "trial " << trial;
      const double ratio = static_cast<double>(worst[i].count()) / static_cast<double>(bound.count());
      tightness = std::max(tightness, ratio);
      sum_ratio += ratio;
      ++tasks;
    }
    ++checked;
  }
  EXPECT_GE(checked, 100);
  // Tightness: the largest observed response as a fraction of its bound.
  std::cout << "[ soundness ] " << to_string(method) << ": " << checked << " schedulable systems, " << tasks
            << " tasks: observed/bound max = " << tightness << ", mean = " << sum_ratio / tasks << "\n";
}

TEST(RtgpuSoundness, RtgpuObservedResponsesStayWithinBounds) { check(RtgpuMethod::rtgpu, 314); }
TEST(RtgpuSoundness, SelfSuspensionObservedResponsesStayWithinBounds) {
  check(RtgpuMethod::self_suspension, 315);
}
TEST(RtgpuSoundness, StgmObservedResponsesStayWithinBounds) { check(RtgpuMethod::stgm, 316); }

}  // namespace
}  // namespace gpurt

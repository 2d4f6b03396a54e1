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
  std::size_t segment = 0;  // 0 .. 4m−4: CL^0, ML^0, G^0, ML^1, CL^1, ...
  Nanos remaining{0};
  bool on_bus = false;
};

struct TaskState {
  std::vector<Nanos> releases;  // pending, ascending
  std::size_t next_release = 0;
  std::optional<Job> job;
  Nanos worst{0};
};

Kind kind_of(std::size_t s) {
  if (s == 0) return Kind::cpu;
  switch ((s - 1) % 4) {
    case 0:
    case 2:
      return Kind::copy;
    case 1:
      return Kind::gpu;
    default:
      return Kind::cpu;
  }
}

Nanos draw(Rng& rng, TimeBounds b) { return Nanos{rng.uniform_int(b.lo.count(), b.hi.count())}; }

Nanos length_of(Rng& rng, const RtgpuTask& t, const std::vector<TimeBounds>& gpu, std::size_t s) {
  if (s == 0) return draw(rng, t.cpu[0]);
  const std::size_t q = (s - 1) / 4;
  switch ((s - 1) % 4) {
    case 0:
      return draw(rng, t.copy[2 * q]);
    case 1:
      return draw(rng, gpu[q]);
    case 2:
      return draw(rng, t.copy[2 * q + 1]);
    default:
      return draw(rng, t.cpu[q + 1]);
  }
}

// Runs the schedule up to `horizon`; returns each task's largest observed response time.
std::vector<Nanos> simulate(const RtgpuSystem& s, const std::vector<std::vector<TimeBounds>>& gpu, Rng& rng,
                            Nanos horizon) {
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
      const std::size_t last = 4 * s.tasks[i].cpu.size() - 4;
      for (;;) {
        if (!x.job) {
          if (x.next_release >= x.releases.size() || x.releases[x.next_release] > now) break;
          x.job = Job{x.releases[x.next_release++], 0, length_of(rng, s.tasks[i], gpu[i], 0), false};
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
        x.job->remaining = length_of(rng, s.tasks[i], gpu[i], x.job->segment);
      }
    }
    bool pending = false;
    for (const TaskState& x : st) pending = pending || x.job || x.next_release < x.releases.size();
    if (!pending) break;
    // Bus: non-preemptive; when free, the highest-priority waiting copy takes it.
    if (bus == kNone) {
      for (std::size_t i : order) {
        if (st[i].job && kind_of(st[i].job->segment) == Kind::copy) {
          bus = i;
          st[i].job->on_bus = true;
          break;
        }
      }
    }
    // CPU: preemptive; the highest-priority job in a CPU segment runs.
    std::size_t cpu = kNone;
    for (std::size_t i : order) {
      if (st[i].job && kind_of(st[i].job->segment) == Kind::cpu) {
        cpu = i;
        break;
      }
    }
    Nanos next = Nanos::max();
    for (const TaskState& x : st) {
      if (x.next_release < x.releases.size()) next = std::min(next, x.releases[x.next_release]);
    }
    auto progressing = [&](std::size_t i) {
      const Kind k = kind_of(st[i].job->segment);
      return k == Kind::gpu || (k == Kind::cpu && cpu == i) || (k == Kind::copy && bus == i);
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

TEST(RtgpuSoundness, ObservedResponsesStayWithinBounds) {
  Rng rng(314);
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
    const RtgpuResult r = analyse_rtgpu(s);
    if (!r.schedulable) continue;
    std::vector<std::vector<TimeBounds>> gpu;
    Nanos longest{0};
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      gpu.push_back(r.tasks[i].bounds.gpu);
      longest = std::max(longest, s.tasks[i].period);
    }
    const std::vector<Nanos> worst = simulate(s, gpu, rng, 30 * longest);
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      const Nanos bound = *r.tasks[i].bounds.response;
      ASSERT_LE(worst[i], bound) << "trial " << trial << " task " << s.tasks[i].name << "\n"
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
  std::cout << "[ soundness ] " << checked << " schedulable systems, " << tasks
            << " tasks: observed/bound max = " << tightness << ", mean = " << sum_ratio / tasks << "\n";
}

}  // namespace
}  // namespace gpurt

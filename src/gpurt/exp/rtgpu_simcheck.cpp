#include "gpurt/exp/rtgpu_simcheck.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"
#include "gpurt/sim/rtgpu_sim.hpp"

namespace gpurt {

namespace {

struct SetOutcome {
  bool schedulable = false;
  std::vector<RtgpuSimCheckTask> tasks;
  std::vector<RtgpuSimCheckViolation> violations;
  std::int64_t late_kernels = 0, late_copies = 0;
};

// Table 1 (§6.1) varied around its defaults so that small and large systems, one and two
// copies, short and long suspensions and loose and tight lower bounds all occur.
RtgpuSystem draw_system(Rng& rng) {
  RtgpuTable1Options o;
  o.tasks = static_cast<int>(rng.uniform_int(2, 5));
  o.subtasks = static_cast<int>(rng.uniform_int(1, 5));
  o.physical_sms = static_cast<int>(rng.uniform_int(o.tasks, 10));
  o.utilization = rng.uniform(0.2, 1.0);
  o.two_copies = rng.uniform01() < 0.5;
  constexpr std::array<double, 4> kScale = {0.5, 1, 2, 8};  // Fig. 8's ratios and Table 1's
  o.suspension_scale = kScale[static_cast<std::size_t>(rng.uniform_int(0, 3))];
  o.lower_fraction = rng.uniform(0.3, 1.0);
  return generate_rtgpu_table1(rng, o);
}

SetOutcome check_set(int set, Rng rng, std::int64_t jobs) {
  SetOutcome out;
  const RtgpuSystem s = draw_system(rng);
  const RtgpuResult a = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
  if (!a.schedulable) return out;
  out.schedulable = true;
  std::vector<int> sms;
  for (const RtgpuTaskResult& t : a.tasks) sms.push_back(t.physical_sms);
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    RtgpuSimCheckTask t;
    t.set = set;
    t.task = s.tasks[i].name;
    t.physical_sms = sms[i];
    t.segments = s.tasks[i].segments();
    t.bound = *a.tasks[i].bounds.response;
    t.lower = a.tasks[i].bounds.lower;
    t.deadline = s.tasks[i].deadline;
    out.tasks.push_back(std::move(t));
  }
  for (std::size_t run = 0; run < kRtgpuSimRuns.size(); ++run) {
    RtgpuSimOptions o;
    o.physical_sms = sms;
    o.jobs = jobs;
    o.execution = run == 2 ? RtgpuExecution::random : RtgpuExecution::worst;
    o.random_offsets = run > 0;
    o.sporadic_jitter = run == 2 ? 0.3 : 0;
    o.seed = rng.next_u64();
    const RtgpuSimResult r = simulate_rtgpu(s, o);
    out.late_kernels += r.late_kernels;
    out.late_copies += r.late_copies;
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      RtgpuSimCheckTask& t = out.tasks[i];
      t.observed[run] = r.tasks[i].worst;
      if (r.tasks[i].worst > t.bound || r.tasks[i].best < t.lower) {
        out.violations.push_back({set, t.task, kRtgpuSimRuns[run],
                                  r.tasks[i].worst > t.bound ? r.tasks[i].worst : r.tasks[i].best, t.bound,
                                  t.lower, to_json(s).dump()});
      }
    }
  }
  for (RtgpuSimCheckTask& t : out.tasks) {
    const Nanos worst = *std::max_element(t.observed.begin(), t.observed.end());
    t.tightness = static_cast<double>(worst.count()) / static_cast<double>(t.bound.count());
  }
  return out;
}

}  // namespace

RtgpuSimCheckResult run_rtgpu_simcheck(const RtgpuSimCheckOptions& o) {
  std::vector<SetOutcome> sets(static_cast<std::size_t>(std::max(0, o.sets)));
  const Rng root(o.seed);
  const auto body = [&](std::size_t j) { sets[j] = check_set(static_cast<int>(j), root.fork(j), o.jobs); };
  std::optional<tbb::global_control> limit;
  if (o.threads > 0)
    limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o.threads));
  tbb::parallel_for(std::size_t{0}, sets.size(), body);
  RtgpuSimCheckResult r;
  r.generated = static_cast<int>(sets.size());
  for (SetOutcome& s : sets) {
    r.schedulable += s.schedulable ? 1 : 0;
    r.late_kernels += s.late_kernels;
    r.late_copies += s.late_copies;
    for (auto& t : s.tasks) r.tasks.push_back(std::move(t));
    for (auto& v : s.violations) r.violations.push_back(std::move(v));
  }
  return r;
}

std::string to_csv(const RtgpuSimCheckResult& r) {
  std::string out = "set,task,sms,segments,bound_ms,lower_ms,deadline_ms";
  for (const char* run : kRtgpuSimRuns) out += fmt::format(",{}_ms", run);
  out += ",tightness\n";
  const auto ms = [](Nanos t) { return from_nanos(t, TimeUnit::ms); };
  for (const RtgpuSimCheckTask& t : r.tasks) {
    out += fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f}", t.set, t.task, t.physical_sms, t.segments,
                       ms(t.bound), ms(t.lower), ms(t.deadline));
    for (Nanos x : t.observed) out += fmt::format(",{:.6f}", ms(x));
    out += fmt::format(",{:.6f}\n", t.tightness);
  }
  return out;
}

std::array<double, 3> tightness_summary(const RtgpuSimCheckResult& r) {
  if (r.tasks.empty()) return {0, 0, 0};
  std::vector<double> v;
  for (const RtgpuSimCheckTask& t : r.tasks) v.push_back(t.tightness);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {v.front(), median, v.back()};
}

}  // namespace gpurt

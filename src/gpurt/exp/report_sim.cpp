// The simulations of `gpurt report`: the same system under every policy that applies, on the
// platform's performance model, through the existing drivers (sim/system.hpp, sim/rtgpu_sim.hpp,
// sim/pbs_play.hpp, sim/fifo_sim.hpp).
#include <algorithm>

#include "gpurt/core/error.hpp"
#include "gpurt/exp/report_internal.hpp"
#include "gpurt/sim/fifo_sim.hpp"
#include "gpurt/sim/pbs_play.hpp"
#include "gpurt/sim/rtgpu_sim.hpp"

namespace gpurt::report_detail {

namespace {

std::optional<double> utilisation(const SimStats& stats, const Platform& p) {
  const double capacity =
      static_cast<double>(p.sms) * p.max_threads * static_cast<double>(stats.end_time.count());
  if (!(capacity > 0)) return std::nullopt;
  return stats.busy_thread_time / capacity;
}

// Jobs of a task released in [0, horizon) at its period, as the other policies release them:
// ceil(horizon / T), at least 1 and at most options.max_jobs_per_task.
std::int64_t jobs_for(Nanos horizon, Nanos period, const ReportOptions& o) {
  const std::int64_t n = period.count() > 0 ? ceil_div(horizon.count(), period.count()) : 1;
  return std::clamp<std::int64_t>(n, 1, o.max_jobs_per_task);
}

const ReportAnalysis* find(const Report& r, const std::string& name) {
  for (const ReportAnalysis& a : r.analyses)
    if (a.name == name) return &a;
  return nullptr;
}

void run_system(ReportSimulation& out, const std::string& policy, const SmlpSystem& s, const ReportOptions& o,
                Nanos horizon) {
  const SystemSimOptions so = system_sim_options(policy, s, o, horizon);
  const SystemSimResult res = simulate_system(s, so);
  int units = 0;
  for (const TaskSimStats& t : res.tasks) {
    ReportSimTask st{t.name, t.jobs, t.worst_response, t.mean_response, t.deadline_misses, {}, {}};
    for (const SystemJobTimes& j : t.job_times) {
      st.responses.push_back(j.finish - j.release);
      st.timeline.push_back(ReportJob{j.release, j.granted, j.kernel_end, j.finish});
    }
    units += t.units;
    out.tasks.push_back(std::move(st));
  }
  out.gpu_utilisation = utilisation(res.stats, s.platform);
  out.span = res.stats.end_time;
  if (policy == "kx") out.detail = fmt::format("k = {} partitioned slots", so.k);
  if (policy == "federated") out.detail = fmt::format("{} of {} units dedicated", units, s.platform.units());
  if (policy == "smlp-prio") out.detail = "tasks listed first served first";
}

void run_rtgpu(ReportSimulation& out, const RtgpuSystem& s, const Report& r, const ReportOptions& o,
               Nanos horizon) {
  const ReportAnalysis* a = find(r, "rtgpu");
  if (!a || !a->applicable || a->allocation.size() != s.tasks.size()) {
    out.why = "no RTGPU allocation to simulate";
    return;
  }
  RtgpuSimOptions so;
  so.physical_sms = a->allocation;
  for (const RtgpuTask& t : s.tasks) so.jobs_per_task.push_back(jobs_for(horizon, t.period, o));
  const RtgpuSimResult res = simulate_rtgpu(s, so);
  for (const RtgpuTaskSim& t : res.tasks)
    out.tasks.push_back(ReportSimTask{t.name, t.jobs, t.worst, t.mean, t.deadline_misses, {}, {}});
  out.gpu_utilisation = utilisation(res.stats, s.platform);
  out.span = res.stats.end_time;
  out.detail = "the rtgpu allocation, every segment at its upper bound";
}

void run_pbs(ReportSimulation& out, const PbsSystem& s, const Report& r) {
  if (r.pbs_table.empty()) {
    out.why = "GPUSched found no schedule table to play";
    return;
  }
  const PbsPlayResult res = play_pbs_table(s, r.pbs_table);
  for (const PbsTask& t : s.tasks)
    out.tasks.push_back(ReportSimTask{t.name, 0, Nanos{0}, Nanos{0}, 0, {}, {}});
  for (std::size_t f = 0; f < r.pbs_table.size() && f < res.frames.size(); ++f) {
    for (const PbsJobRef& j : r.pbs_table[f].jobs) {
      ReportSimTask& st = out.tasks[static_cast<std::size_t>(j.task)];
      const Nanos release = s.tasks[static_cast<std::size_t>(j.task)].period * j.job;
      const Nanos response = res.frames[f].end - release;
      st.responses.push_back(response);
      st.timeline.push_back(ReportJob{release, res.frames[f].start, res.frames[f].end, res.frames[f].end});
      if (response > s.tasks[static_cast<std::size_t>(j.task)].deadline) ++st.misses;
      out.span = std::max(out.span, res.frames[f].end);
    }
  }
  for (ReportSimTask& st : out.tasks) {
    st.jobs = static_cast<std::int64_t>(st.responses.size());
    long double total = 0;
    for (Nanos x : st.responses) {
      st.max_response = std::max(st.max_response, x);
      total += static_cast<long double>(x.count());
    }
    if (st.jobs > 0) st.mean_response = Nanos{static_cast<std::int64_t>(total / st.jobs)};
  }
  out.detail = "GPUSched's table, time-triggered, one hyperperiod";
  if (!res.matches_model) out.detail += "; differs from the model: " + res.first_problem;
}

void run_fifo(ReportSimulation& out, const FifoSystem& s, const ReportOptions& o, Nanos horizon) {
  FifoSimOptions so;
  for (const FifoTask& t : s.tasks) so.jobs_per_task.push_back(jobs_for(horizon, t.period, o));
  const FifoSimResult res = simulate_fifo(s, so);
  for (std::size_t i = 0; i < res.tasks.size(); ++i) {
    const FifoTaskSim& t = res.tasks[i];
    ReportSimTask st{t.name, static_cast<std::int64_t>(t.response.size()), t.worst, t.mean, 0, {}, {}};
    for (Nanos x : t.response)
      if (x > s.tasks[i].period) ++st.misses;  // implicit deadline d = r + T
    if (o.record_jobs) st.responses = t.response;
    out.tasks.push_back(std::move(st));
  }
  out.gpu_utilisation = utilisation(res.stats, fifo_platform(s));
  out.span = res.stats.end_time;
  out.detail = fmt::format("one pool of {} threads", s.gpu_threads);
}

}  // namespace

SystemSimOptions system_sim_options(const std::string& policy, const SmlpSystem& smlp,
                                    const ReportOptions& options, Nanos horizon) {
  SystemSimOptions o;
  o.policy = parse_arbitration(policy);
  o.horizon = horizon;
  o.k = std::clamp(options.k, 1, std::max(1, smlp.platform.units()));
  o.record_jobs = options.record_jobs;
  return o;
}

ReportSimulation simulate_policy(const std::string& policy, const Models& m, const Report& report,
                                 const ReportOptions& options, Nanos horizon) {
  ReportSimulation out;
  out.policy = policy;
  try {
    if (policy == "rtgpu-federated") {
      if (!m.rtgpu.applies()) out.why = m.rtgpu.why;
      if (m.rtgpu.applies()) run_rtgpu(out, *m.rtgpu.model, report, options, horizon);
    } else if (policy == "pbs-table") {
      if (!m.pbs.applies()) out.why = m.pbs.why;
      if (m.pbs.applies()) run_pbs(out, *m.pbs.model, report);
    } else if (policy == "fifo") {
      if (!m.fifo.applies()) out.why = m.fifo.why;
      if (m.fifo.applies()) run_fifo(out, *m.fifo.model, options, horizon);
    } else {
      if (!m.smlp.applies()) out.why = m.smlp.why;
      if (m.smlp.applies()) run_system(out, policy, *m.smlp.model, options, horizon);
    }
  } catch (const Error& e) {
    out.tasks.clear();
    out.why = e.what();
  }
  out.ran = out.why.empty();
  return out;
}

}  // namespace gpurt::report_detail

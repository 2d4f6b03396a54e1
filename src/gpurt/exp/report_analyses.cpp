// The analyses of `gpurt report`: every seed's analysis on the model derived from the system, with
// per-task bounds and a verdict, or the reason it does not apply. Only existing entry points are
// called (analysis/*.hpp, and simulate_system for the federated arbiter's own bound).
#include <algorithm>

#include "gpurt/analysis/fifo.hpp"
#include "gpurt/analysis/kx.hpp"
#include "gpurt/analysis/pbs.hpp"
#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/report_internal.hpp"

namespace gpurt::report_detail {

namespace {

/// The PBS search cap of `gpurt analyze pbs` (about 0.5 GB and a few minutes at most).
constexpr std::uint64_t kMaxVertices = 1'000'000;

ReportAnalysis not_applicable(std::string name, std::string source, std::string policy, std::string why) {
  ReportAnalysis a;
  a.name = std::move(name);
  a.source = std::move(source);
  a.policy = std::move(policy);
  a.why = std::move(why);
  return a;
}

std::optional<Nanos> smlp_period(const SmlpSystem& s, std::size_t i) {
  if (i < s.timing.size() && s.timing[i].period) return s.timing[i].period;
  return s.tasks[i].deadline;
}

// A bound of a job that holds only while a task's jobs never overlap (each completes within its
// period), as Lemma 2 and the dedicated-units bound assume; the verdict is every deadline met.
void end_to_end(ReportAnalysis& a, const SmlpSystem& s, std::size_t i, std::optional<Nanos> e2e,
                std::string note) {
  ReportTaskBound b{s.tasks[i].name, std::nullopt, s.tasks[i].deadline, std::move(note)};
  const std::optional<Nanos> period = smlp_period(s, i);
  bool ok = e2e.has_value();
  if (!e2e) {
    b.note = "the bound overflows 64-bit nanoseconds";
  } else if (period && *e2e > *period) {
    const bool periodic = i < s.timing.size() && s.timing[i].period.has_value();
    b.note = fmt::format(
        "bound {} exceeds the {}: jobs may queue, which the bound does not cover", show(*e2e, s.time_unit),
        periodic ? "period" : "deadline (the release separation of a task without a period)");
    ok = false;
  } else {
    b.bound = e2e;
    if (b.deadline && *e2e > *b.deadline) ok = false;
  }
  if (!ok) a.schedulable = false;
  a.tasks.push_back(std::move(b));
}

constexpr const char* kNoPriorityBound =
    "gpurt has no response-time bound for SMLP served in priority order (simulated only)";

// k-exclusion, one partition per slot, FIFO, lock per kernel: what the kx policy simulates.
void kx_analysis(Report& r, const SmlpSystem& s, int k) {
  ReportAnalysis a;
  a.name = a.policy = "kx";
  a.source = "k-exclusion, FIFO, a partition per slot (Dissertation §6.1; analysis/kx.hpp)";
  a.applicable = true;
  a.schedulable = true;
  const KxResult res = analyse_kx(s, KxOptions{k, false});
  std::string slots;
  for (int u : res.slot_units) slots += (slots.empty() ? "" : ",") + std::to_string(u);
  a.detail = fmt::format(
      "k = {} slots of {} units; bound = cpu_before + ceil(sum of other holds / k) + "
      "hold + cpu_after, hold = the longest L(i, slot)",
      res.k, slots);
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    end_to_end(a, s, i, res.tasks[i].response_bound,
               fmt::format("waits <= {}", show(res.tasks[i].blocking, s.time_unit)));
  r.analyses.push_back(std::move(a));
}

void smlp_analyses(Report& r, const Models& m, const ReportOptions& o) {
  if (!m.smlp.applies()) {
    for (const char* n : {"smlp", "smlp-prio", "kx", "federated"})
      r.analyses.push_back(not_applicable(n, "", n, m.smlp.why));
    return;
  }
  const SmlpSystem& s = *m.smlp.model;
  const int k = std::clamp(o.k, 1, std::max(1, s.platform.units()));
  if (!m.interference.empty()) {
    // With declared interference, kernels that run beside each other (each on its units) are
    // slower than the L(i,k) the bounds take: no bound where they can (the policies are still
    // simulated); k-exclusion with one slot runs one kernel at a time.
    const std::string why =
        m.interference +
        ", which the SMLP model's L(i,k) does not carry: this bound lets kernels run side by side at L(i,k); "
        "give L(i,k) measured under interference (as the FFT seed does) and no slowdown";
    r.analyses.push_back(not_applicable("smlp", "", "smlp", why));
    r.analyses.push_back(not_applicable("smlp-prio", "", "smlp-prio", kNoPriorityBound));
    if (k > 1) r.analyses.push_back(not_applicable("kx", "", "kx", why + " (or --k 1)"));
    if (k == 1) kx_analysis(r, s, k);
    r.analyses.push_back(not_applicable("federated", "", "federated", why));
    return;
  }
  {
    ReportAnalysis a;
    a.name = a.policy = "smlp";
    a.source = "FFT/SMLP Lemma 2 (+ CPU segments)";
    a.applicable = true;
    a.schedulable = true;
    const SmlpResult res = analyse_smlp(s);
    a.detail = fmt::format(
        "H = {} units; bound = cpu_before + copy wait + L_max + ceil(sum of other A_max / H) + cpu_after",
        res.units);
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      const SmlpTaskTiming t = i < s.timing.size() ? s.timing[i] : SmlpTaskTiming{};
      std::optional<Nanos> e2e = add(t.cpu_before, res.tasks[i].response_bound);
      if (e2e) e2e = add(*e2e, t.cpu_after);
      if (e2e) e2e = add(*e2e, t.copy_wait);
      std::string sizes;
      for (int units : res.tasks[i].allowed_units)
        sizes += (sizes.empty() ? "" : ",") + std::to_string(units);
      end_to_end(a, s, i, e2e, "S = {" + sizes + "}");
    }
    r.analyses.push_back(std::move(a));
  }
  r.analyses.push_back(not_applicable("smlp-prio", "", "smlp-prio", kNoPriorityBound));
  kx_analysis(r, s, k);
  // Federated (Dissertation §6.3): the dedicated-units bound that sim/system.hpp computes with
  // its own allocation (the smallest allowed size meeting the deadline with the CPU segments).
  try {
    SystemSimOptions so = system_sim_options("federated", s, o, Nanos{1});
    const SystemSimResult res = simulate_system(s, so);
    ReportAnalysis a;
    a.name = a.policy = "federated";
    a.source = "dedicated units: cpu_before + copy wait + L(i, n_i) + cpu_after";
    a.applicable = true;
    a.schedulable = true;
    int used = 0;
    for (std::size_t i = 0; i < res.tasks.size(); ++i) {
      used += res.tasks[i].units;
      a.allocation.push_back(res.tasks[i].units);
      end_to_end(a, s, i, res.tasks[i].policy_bound, fmt::format("{} units", res.tasks[i].units));
    }
    a.detail = fmt::format("{} of {} units dedicated", used, s.platform.units());
    a.reserved = static_cast<double>(used) / s.platform.units();
    r.analyses.push_back(std::move(a));
  } catch (const Error& e) {
    r.analyses.push_back(not_applicable("federated", "", "federated", e.what()));
  }
}

void rtgpu_analyses(Report& r, const Models& m) {
  const std::pair<RtgpuMethod, const char*> methods[] = {
      {RtgpuMethod::rtgpu, "RTGPU Theorem 5.6, exact allocation search"},
      {RtgpuMethod::self_suspension, "RTGPU §6 self-suspension baseline"},
      {RtgpuMethod::stgm, "RTGPU §6 STGM baseline, exact allocation search"}};
  for (const auto& [method, source] : methods) {
    const std::string name(to_string(method));
    const std::string policy = method == RtgpuMethod::rtgpu ? "rtgpu-federated" : "";
    if (!m.rtgpu.applies()) {
      r.analyses.push_back(not_applicable(name, source, policy, m.rtgpu.why));
      continue;
    }
    const RtgpuSystem& s = *m.rtgpu.model;
    try {
      const RtgpuResult res = analyse_rtgpu(s, RtgpuOptions{method, RtgpuSearch::exact});
      ReportAnalysis a;
      a.name = name;
      a.source = source;
      a.policy = policy;
      a.applicable = true;
      a.schedulable = res.schedulable;
      int used = 0;
      for (const RtgpuTaskResult& t : res.tasks) {
        ReportTaskBound b{t.name, std::nullopt, t.deadline, ""};
        // Theorem 5.6's iterations stop at the deadline (D <= T): a response above it is where
        // they stopped, not a bound (and above the period jobs could queue), so none is claimed.
        if (!t.analysable) {
          b.note = "not analysable (a higher-priority task misses)";
        } else if (t.bounds.schedulable && t.bounds.response) {
          b.bound = t.bounds.response;
        } else {
          b.note = t.bounds.reason.empty() ? "no bound within the deadline" : t.bounds.reason;
        }
        if (method != RtgpuMethod::self_suspension) {
          b.note += (b.note.empty() ? "" : "; ") + fmt::format("{} SMs", t.physical_sms);
          used += t.physical_sms;
          a.allocation.push_back(t.physical_sms);
        }
        a.tasks.push_back(std::move(b));
      }
      if (method != RtgpuMethod::self_suspension) a.reserved = static_cast<double>(used) / res.physical_sms;
      a.detail = method == RtgpuMethod::self_suspension
                     ? "every kernel on the whole GPU"
                     : fmt::format("{} of {} SMs allocated{}", used, res.physical_sms,
                                   res.allocation_found ? "" : " (no schedulable allocation found)");
      r.analyses.push_back(std::move(a));
    } catch (const Error& e) {
      r.analyses.push_back(not_applicable(name, source, policy, e.what()));
    }
  }
}

}  // namespace

/// Per-task bounds of a PBS table: the latest finish of a task's jobs after their arrivals.
void pbs_table_bounds(ReportAnalysis& a, const PbsSystem& s, const std::vector<PbsFrame>& table) {
  std::vector<std::optional<Nanos>> worst(s.tasks.size());
  for (const PbsFrame& f : table) {
    for (const PbsJobRef& j : f.jobs) {
      const auto t = static_cast<std::size_t>(j.task);
      const Nanos response = f.end - s.tasks[t].period * j.job;
      if (!worst[t] || response > *worst[t]) worst[t] = response;
    }
  }
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    a.tasks.push_back(ReportTaskBound{s.tasks[i].name, worst[i], s.tasks[i].deadline, ""});
}

namespace {

void pbs_analyses(Report& r, const Models& m) {
  const std::pair<PbsPolicy, const char*> policies[] = {
      {PbsPolicy::gpusched, "PBS §3 GPUSched (exact schedule-table search)"},
      {PbsPolicy::edf_serial, "PBS §6 EDFserial baseline"},
      {PbsPolicy::edf_parallel, "PBS §6 EDFParallel baseline"}};
  for (const auto& [policy, source] : policies) {
    const std::string name(to_string(policy));
    const std::string sim = policy == PbsPolicy::gpusched ? "pbs-table" : "";
    if (!m.pbs.applies()) {
      r.analyses.push_back(not_applicable(name, source, sim, m.pbs.why));
      continue;
    }
    const PbsSystem& s = *m.pbs.model;
    try {
      PbsOptions po;
      po.policy = policy;
      po.max_vertices = kMaxVertices;
      const PbsResult res = analyse_pbs(s, po);
      ReportAnalysis a;
      a.name = name;
      a.source = source;
      a.policy = sim;
      a.applicable = true;
      if (res.complete) a.schedulable = res.schedulable;
      a.detail =
          fmt::format("hyperperiod {}, {} frames{}", show(res.hyperperiod, s.time_unit), res.table.size(),
                      res.complete ? "" : fmt::format(" (search stopped at {} vertices)", kMaxVertices));
      if (res.schedulable) {
        pbs_table_bounds(a, s, res.table);
        if (policy == PbsPolicy::gpusched) r.pbs_table = res.table;
      } else {
        for (const PbsTask& t : s.tasks)
          a.tasks.push_back(ReportTaskBound{t.name, std::nullopt, t.deadline, ""});
      }
      r.analyses.push_back(std::move(a));
    } catch (const Error& e) {
      r.analyses.push_back(not_applicable(name, source, sim, e.what()));
    }
  }
}

void fifo_analysis(Report& r, const Models& m) {
  const char* source = "FIFO model Theorem 1 (utilisation limit; no response-time bound)";
  if (!m.fifo.applies()) {
    r.analyses.push_back(not_applicable("fifo-theorem1", source, "", m.fifo.why));
    return;
  }
  const FifoSystem& s = *m.fifo.model;
  const FifoResult res = analyse_fifo(s);
  ReportAnalysis a;
  a.name = "fifo-theorem1";
  a.source = source;
  a.applicable = true;
  // Theorem 1 is an existence result: SOME system at or above the limit has unbounded responses,
  // so there it is a warning, not a verdict on this system; only an overload (U_sum > m) is one.
  if (res.overloaded) a.schedulable = false;
  a.detail = fmt::format("U_sum = {:.6g} threads, limit m - b_max + 1 = {:.6g}: {}", res.total_utilization,
                         res.limit,
                         res.overloaded          ? "overloaded (U_sum > m): responses grow without bound"
                         : res.at_or_above_limit ? "at or above the limit, where Theorem 1 shows systems "
                                                   "with unbounded responses (no verdict on this one)"
                                                 : "below the limit (the seed gives no bound there)");
  for (const FifoTask& t : s.tasks) a.tasks.push_back(ReportTaskBound{t.name, std::nullopt, t.period, ""});
  r.analyses.push_back(std::move(a));
}

}  // namespace

void add_analyses(Report& report, const Models& models, const ReportOptions& options) {
  smlp_analyses(report, models, options);
  rtgpu_analyses(report, models);
  pbs_analyses(report, models);
  fifo_analysis(report, models);
}

}  // namespace gpurt::report_detail

// `gpurt report`: orchestration, the consistency check and the recommendation (report.hpp).
#include "gpurt/exp/report.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "gpurt/core/error.hpp"
#include "gpurt/exp/report_internal.hpp"

namespace gpurt {

using report_detail::show;

namespace {

// Each task's release separation: its period, else its deadline (as simulate-system releases).
std::vector<Nanos> release_periods(const System& system) {
  std::vector<Nanos> out;
  for (const SystemTask& t : system.tasks) {
    if (t.period && t.period->count() > 0) {
      out.push_back(*t.period);
    } else if (t.deadline && t.deadline->count() > 0) {
      out.push_back(*t.deadline);
    }
  }
  return out;
}

}  // namespace

void check_consistency(Report& r) {
  for (const ReportAnalysis& a : r.analyses) {
    if (!a.applicable || a.policy.empty()) continue;
    const auto sim = std::find_if(r.simulated.begin(), r.simulated.end(),
                                  [&](const ReportSimulation& s) { return s.policy == a.policy && s.ran; });
    if (sim == r.simulated.end()) continue;
    for (const ReportTaskBound& b : a.tasks) {
      if (!b.bound) continue;
      const auto t = std::find_if(sim->tasks.begin(), sim->tasks.end(),
                                  [&](const ReportSimTask& st) { return st.name == b.name; });
      if (t == sim->tasks.end() || t->jobs == 0) continue;
      ++r.checked;
      if (t->max_response > *b.bound)
        r.violations.push_back({a.name, a.policy, b.name, t->max_response, *b.bound});
    }
  }
}

namespace {

void recommend(Report& r, bool has_deadlines) {
  if (!has_deadlines) {  // every analysis is "schedulable" vacuously: nothing to recommend by
    r.recommendation =
        "no task has a deadline or a period, so no analysis has a deadline to guarantee; "
        "compare the bounds above";
    return;
  }
  std::string broken;  // analyses whose bound their own simulation passed: no guarantee
  for (const ReportAnalysis& a : r.analyses) {
    if (!a.applicable || a.schedulable != true) continue;
    if (std::any_of(r.violations.begin(), r.violations.end(),
                    [&](const ReportViolation& v) { return v.analysis == a.name; })) {
      broken += (broken.empty() ? "" : ", ") + a.name;
      continue;
    }
    ReportCandidate c{a.name, a.policy.empty() ? a.name : a.policy, 1 - a.reserved, std::nullopt,
                      std::nullopt};
    for (const ReportTaskBound& b : a.tasks) {
      if (!b.bound || !b.deadline) continue;
      const Nanos slack = *b.deadline - *b.bound;
      if (!c.min_slack || slack < *c.min_slack) c.min_slack = slack;
    }
    for (const ReportSimulation& s : r.simulated)
      if (s.policy == a.policy && s.ran) c.gpu_utilisation = s.gpu_utilisation;
    r.guaranteed.push_back(std::move(c));
  }
  const std::string left_out =
      broken.empty()
          ? ""
          : fmt::format(" ({} left out: simulated above its bound, see the consistency check)", broken);
  if (r.guaranteed.empty()) {
    r.recommendation = "no analysis guarantees every deadline of this system" + left_out;
    return;
  }
  // Most GPU left to other work; then the least GPU used in simulation; then the most slack.
  const auto better = [](const ReportCandidate& x, const ReportCandidate& y) {
    if (x.spare != y.spare) return x.spare > y.spare;
    if (x.gpu_utilisation.has_value() != y.gpu_utilisation.has_value()) return x.gpu_utilisation.has_value();
    if (x.gpu_utilisation && *x.gpu_utilisation != *y.gpu_utilisation)
      return *x.gpu_utilisation < *y.gpu_utilisation;
    return x.min_slack.value_or(Nanos::min()) > y.min_slack.value_or(Nanos::min());
  };
  for (const ReportCandidate& c : r.guaranteed)
    if (!r.best || better(c, *r.best)) r.best = c;
  std::string list;
  for (const ReportCandidate& c : r.guaranteed) {
    list += fmt::format("{}{} ({:.1f} % of the GPU spare", list.empty() ? "" : ", ", c.policy, 100 * c.spare);
    if (c.gpu_utilisation) list += fmt::format(", {:.1f} % busy in simulation", 100 * *c.gpu_utilisation);
    if (c.min_slack) list += fmt::format(", min slack {}", show(*c.min_slack, r.time_unit));
    list += ")";
  }
  r.recommendation = fmt::format("every deadline guaranteed by: {}; {} leaves the most GPU to spare{}", list,
                                 r.best->policy, left_out);
}

}  // namespace

Nanos default_report_horizon(const System& system, std::int64_t max_jobs_per_task) {
  const std::vector<Nanos> periods = release_periods(system);
  if (periods.empty()) return Nanos{0};
  const Nanos longest = *std::max_element(periods.begin(), periods.end());
  const Nanos shortest = *std::min_element(periods.begin(), periods.end());
  // Caps: 100 longest periods, and max_jobs_per_task jobs of the fastest task.
  std::int64_t cap = longest.count() > std::numeric_limits<std::int64_t>::max() / 100
                         ? std::numeric_limits<std::int64_t>::max()
                         : longest.count() * 100;
  if (shortest.count() <=
      std::numeric_limits<std::int64_t>::max() / std::max<std::int64_t>(max_jobs_per_task, 1))
    cap = std::min(cap, shortest.count() * std::max<std::int64_t>(max_jobs_per_task, 1));
  cap = std::max(cap, longest.count());
  std::int64_t h = 1;
  for (Nanos p : periods) {
    const std::int64_t g = std::gcd(h, p.count());
    if (h / g > cap / p.count()) return Nanos{cap};  // the lcm passes the cap
    h = h / g * p.count();
  }
  return Nanos{std::min(h, cap)};
}

std::pair<Nanos, bool> report_horizon(const System& system, const ReportOptions& options) {
  Nanos horizon =
      options.horizon ? *options.horizon : default_report_horizon(system, options.max_jobs_per_task);
  // The horizon, given or default (which takes at least one longest period), is shortened so
  // that the fastest task releases at most max_jobs_per_task jobs: periods of 1 ns and 10^15 ns
  // in one system would otherwise release 10^15 jobs.
  const std::vector<Nanos> periods = release_periods(system);
  if (!periods.empty()) {
    const Nanos shortest = *std::min_element(periods.begin(), periods.end());
    const std::int64_t n = std::max<std::int64_t>(options.max_jobs_per_task, 1);
    if (shortest.count() <= std::numeric_limits<std::int64_t>::max() / n && horizon > shortest * n) {
      return {shortest * n, true};
    }
  }
  return {horizon, false};
}

Report make_report(const System& system, const ReportOptions& options) {
  for (const std::string& p : options.policies) {
    if (std::find_if(std::begin(kReportPolicies), std::end(kReportPolicies),
                     [&](const char* n) { return p == n; }) == std::end(kReportPolicies)) {
      throw InputError(
          "command line", "--policies", p,
          "unknown policy (be, smlp, smlp-prio, kx, federated, rtgpu-federated, pbs-table, fifo)");
    }
  }
  Report r;
  r.time_unit = system.time_unit;
  r.platform = system.platform.id;
  r.model = system.platform.model.ideal() ? "ideal" : "calibrated";
  std::tie(r.horizon, r.horizon_capped) = report_horizon(system, options);
  if (r.horizon.count() <= 0) {
    if (!options.horizon)
      throw InputError("command line", "--horizon", "(not given)",
                       "is needed: no task has a period or a deadline to take a default from");
    throw InputError("command line", "--horizon", show(r.horizon, r.time_unit), "must be > 0");
  }
  const report_detail::Models models{to_smlp(system), to_rtgpu(system), to_pbs(system), to_fifo(system),
                                     declared_interference(system)};
  report_detail::add_analyses(r, models, options);
  for (const char* p : kReportPolicies) {
    if (!options.policies.empty() &&
        std::find(options.policies.begin(), options.policies.end(), p) == options.policies.end())
      continue;
    r.simulated.push_back(report_detail::simulate_policy(p, models, r, options, r.horizon));
  }
  check_consistency(r);
  recommend(r, !release_periods(system).empty());
  return r;
}

}  // namespace gpurt

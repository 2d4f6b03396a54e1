#include "gpurt/exp/nn_sweep.hpp"

#include <memory>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::vector<NnScenario> nn_scenarios(const std::vector<std::string>& tables, int cus) {
  std::vector<NnScenario> out;
  for (const std::string& t : tables) {
    if (t == "6.1") {
      for (const NnWorkload& w : us_mobilenet_workloads())
        for (const char* m : {"unmanaged", "exclusive", "2-exclusion", "2-exclusion-partitioned", "4-way"})
          out.push_back(NnScenario{t, w.name, "3 identical", m, std::string(m) == "4-way" ? cus / 4 : 0});
    } else if (t == "6.2") {  // a medium task alone or against one medium competitor (§6.2.2)
      for (const char* c : {"none", "1 medium"})
        for (const char* m : {"unmanaged", "per-kernel", "per-job"})
          out.push_back(NnScenario{t, "medium", c, m, 0});
    } else if (t == "6.3" || t.starts_with("6.3:")) {
      if (cus <= 30)
        throw Error(
            fmt::format("table 6.3 gives the measured task 15, 20 or 30 CUs and its competitors the "
                        "rest: it needs more than 30 CUs, not {}",
                        cus));
      // "6.3:none" (or small, medium, large): one competitor group of the table.
      const std::string only = t.size() > 4 ? t.substr(4) : "";
      bool any = false;
      for (const char* c : {"none", "small", "medium", "large"}) {
        if (!only.empty() && only != c) continue;
        any = true;
        for (int own : {15, 20, 30, 0})
          out.push_back(NnScenario{"6.3", "medium", c, own == 0 ? "unpartitioned" : "partitioned", own});
      }
      if (!any)
        throw Error(
            fmt::format("unknown competitors \"{}\" in \"{}\" (none, small, medium, large)", only, t));
    } else {
      throw Error(fmt::format("unknown table \"{}\" (6.1, 6.2, 6.3, 6.3:none|small|medium|large)", t));
    }
  }
  return out;
}

NnSimResult run_nn_scenario(const NnScenario& s, const NnSweepOptions& o) {
  const Platform& p = o.platform;
  NnSimOptions so;
  so.duration = o.duration;
  so.warmup_jobs = o.warmup_jobs;
  so.seed = o.seed;
  so.model = o.model;
  so.max_jobs = o.max_jobs;
  std::vector<NnTaskSpec> tasks;
  const NnWorkload& measured = us_mobilenet_workload(s.task);
  if (s.table == "6.1") {
    for (int i = 0; i < 4; ++i) tasks.push_back(NnTaskSpec{measured, {}, true});
    if (s.management == "exclusive" || s.management == "2-exclusion" ||
        s.management == "2-exclusion-partitioned") {
      so.management = NnManagement::k_exclusion;
      so.k = s.management == "exclusive" ? 1 : 2;
      if (s.management == "2-exclusion-partitioned")  // §6.1.3: two SE-packed halves
        so.slot_cus = {nn_partition(p, 0, p.sms / 2), nn_partition(p, p.sms / 2, p.sms - p.sms / 2)};
    } else if (s.management == "4-way") {  // §6.1.3: one shader engine each
      so.management = NnManagement::partitioned;
      for (int i = 0; i < 4; ++i)
        tasks[static_cast<std::size_t>(i)].cus = nn_partition(p, i * p.sms / 4, p.sms / 4);
    }
    return simulate_nn(p, tasks, so);
  }
  if (s.table == "6.2") {  // per-kernel locking: synchronous launches under an exclusive lock
    tasks.push_back(NnTaskSpec{measured, {}, true});
    if (s.competitors != "none") tasks.push_back(NnTaskSpec{measured, {}, false});
    if (s.management == "per-kernel") so.management = NnManagement::kernel_lock;
    if (s.management == "per-job") so.management = NnManagement::k_exclusion;  // k = 1
    return simulate_nn(p, tasks, so);
  }
  // Table 6.3: the measured medium task, and three competitors on the remaining CUs.
  tasks.push_back(NnTaskSpec{measured, {}, true});
  if (s.competitors != "none")
    for (int i = 0; i < 3; ++i) tasks.push_back(NnTaskSpec{us_mobilenet_workload(s.competitors), {}, false});
  if (s.partition_cus > 0) {
    so.management = NnManagement::partitioned;
    std::vector<bool> own = nn_partition(p, 0, s.partition_cus), rest(own.size());
    for (std::size_t c = 0; c < own.size(); ++c) rest[c] = !own[c];
    tasks[0].cus = own;
    for (std::size_t i = 1; i < tasks.size(); ++i) tasks[i].cus = rest;
  }
  return simulate_nn(p, tasks, so);
}

SweepExperiment nn_sweep_experiment(const NnSweepOptions& o) {
  validate(o.platform);
  auto scenarios = std::make_shared<std::vector<NnScenario>>(nn_scenarios(o.tables, o.platform.sms));
  SweepExperiment e;
  e.key_columns = {"backend", "table", "task", "competitors", "management", "partition_cus"};
  e.value_columns = {"jobs", "min_ms", "max_ms", "mean_ms", "stddev_ms"};
  // A resumed row: a job count, and times that are statistics of that many jobs.
  e.value_kinds = {SweepValue::count, SweepValue::nonnegative, SweepValue::nonnegative,
                   SweepValue::nonnegative, SweepValue::nonnegative};
  e.check_values =
      [](std::size_t,
         const std::vector<std::string>& v) -> std::optional<std::pair<std::size_t, std::string>> {
    const bool none = v[0].empty() || v[0] == "0";
    for (std::size_t k = 1; k < v.size(); ++k)
      if (v[k].empty() != none)
        return std::pair{
            k, none ? std::string("is a statistic of no job") : std::string("is missing for the jobs run")};
    if (none) return std::nullopt;
    const double lo = std::stod(v[1]), hi = std::stod(v[2]), mean = std::stod(v[3]);
    if (lo > mean || mean > hi)
      return std::pair{std::size_t{3}, std::string("is not between min_ms and max_ms")};
    return std::nullopt;
  };
  for (const NnScenario& s : *scenarios) {
    e.keys.push_back({"simulated", s.table, s.task, s.competitors, s.management,
                      s.partition_cus > 0 ? std::to_string(s.partition_cus) : "all"});
    e.items.push_back(1);
  }
  e.run_item = [scenarios, o](std::size_t point, int) {
    const NnJobStats r = run_nn_scenario((*scenarios)[point], o).measured;
    return SweepItem{static_cast<double>(r.jobs), static_cast<double>(r.min.count()),
                     static_cast<double>(r.max.count()), r.mean_ns, r.stddev_ns};
  };
  e.finish_point = [](std::size_t, const std::vector<SweepItem>& items) {
    const SweepItem& v = items.front();
    // No job measured (a run shorter than a job, or only warm-ups): no statistics, not zeros.
    if (v[0] == 0) return std::vector<std::string>{"0", "", "", "", ""};
    return std::vector<std::string>{fmt::format("{}", static_cast<std::int64_t>(v[0])),
                                    fmt::format("{:.3f}", v[1] / 1e6), fmt::format("{:.3f}", v[2] / 1e6),
                                    fmt::format("{:.3f}", v[3] / 1e6), fmt::format("{:.3f}", v[4] / 1e6)};
  };
  return e;
}

}  // namespace gpurt

// `gpurt report --measured DIR`: per-task response times from the result files of a run of the
// same system (docs/report.md "Measured figures").
#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/exp/report.hpp"

namespace gpurt {

ReportMeasured measured_figures(const System& system, const Trace& trace, const std::string& source) {
  ReportMeasured m;
  m.source = source;
  m.simulated = trace.simulated;
  for (const InstanceTrace& inst : trace.instances) {
    const bool known = std::any_of(system.tasks.begin(), system.tasks.end(),
                                   [&](const SystemTask& t) { return t.name == inst.label; });
    if (!known) {
      throw InputError(source, inst.log_name + ": label", inst.label, "names no task of the system");
    }
  }
  for (const SystemTask& task : system.tasks) {
    const InstanceTrace* found = nullptr;
    for (const InstanceTrace& inst : trace.instances) {
      if (inst.label != task.name) continue;
      // Two result files of one task (a copy left in the folder, another run's): which is this
      // run's cannot be told, so neither is taken.
      if (found != nullptr)
        throw InputError(
            source, "label", task.name,
            fmt::format("two result files name this task: {} and {}", found->log_name, inst.log_name));
      found = &inst;
    }
    if (found == nullptr) throw InputError(source, "label", task.name, "no result file of this task");
    const std::optional<Nanos> period = task.period ? task.period : task.deadline;
    if (!period) throw InputError(source, "label", task.name, "the task has no period or deadline");
    const Nanos deadline = task.deadline.value_or(*period);
    ReportMeasuredTask t;
    t.name = task.name;
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < found->iterations.size(); ++k) {
      // Job k's release: the instance's release time plus k periods (the bench runner starts
      // iteration k no earlier than that; model/system_scenario.hpp). Overflow-checked.
      std::int64_t offset = 0, release = 0;
      if (__builtin_mul_overflow(static_cast<std::int64_t>(k), period->count(), &offset) ||
          __builtin_add_overflow(found->release_time.count(), offset, &release)) {
        throw InputError(source, found->log_name, task.name, "job release time overflows");
      }
      const Nanos response = found->iterations[k].execute_end - Nanos{release};
      if (response.count() < 0) {
        throw InputError(source, fmt::format("{}: times[{}]", found->log_name, k), task.name,
                         "ends before its release (not a run of this system?)");
      }
      t.max_response = std::max(t.max_response, response);
      if (__builtin_add_overflow(sum, response.count(), &sum))
        throw InputError(source, found->log_name, task.name, "sum of responses overflows");
      if (response > deadline) ++t.misses;
    }
    t.jobs = static_cast<std::int64_t>(found->iterations.size());
    if (t.jobs > 0) t.mean_response = Nanos{sum / t.jobs};
    m.tasks.push_back(std::move(t));
  }
  return m;
}

void add_measured(Report& report, ReportMeasured measured) {
  for (const ReportAnalysis& a : report.analyses) {
    if (!a.applicable) continue;
    for (const ReportTaskBound& b : a.tasks) {
      if (!b.bound) continue;
      for (const ReportMeasuredTask& t : measured.tasks) {
        if (t.name == b.name && t.jobs > 0 && t.max_response > *b.bound)
          measured.above.push_back({a.name, t.name, t.max_response, *b.bound});
      }
    }
  }
  report.measured = std::move(measured);
}

}  // namespace gpurt

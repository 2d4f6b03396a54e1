#include "gpurt/model/smlp_task.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

Nanos host_bound(const SmlpTaskTiming& timing) {
  return saturating_add(saturating_add(timing.cpu_before, timing.copy_wait), timing.cpu_after);
}

namespace {

constexpr std::string_view kFormat = "gpurt/smlp@1";

double read_rho(const JsonNode& node) {
  const double rho = node.as_number();
  if (rho < 1.0) node.fail("must be >= 1 (eq. 4 compares against the single-unit area)");
  if (rho > 1e6) node.fail("must be <= 1000000 (as --rho: every size is allowed long before)");
  return rho;
}

SmlpTask read_task(const JsonNode& node, TimeUnit unit, int units, SmlpTaskTiming& timing) {
  node.expect_object({"name", "wcet_by_units", "rho", "allowed_units", "deadline", "period", "cpu_before",
                      "cpu_after", "copy_wait"});
  SmlpTask task;
  const JsonNode name = node.at("name");
  task.name = name.as_name();

  const JsonNode wcet = node.at("wcet_by_units");
  const auto entries = wcet.items();
  if (entries.empty()) wcet.fail("must hold L(i,1) at least");
  if (entries.size() > static_cast<std::size_t>(units)) {
    wcet.fail(fmt::format("has {} entries but the platform has only {} units", entries.size(), units));
  }
  for (const JsonNode& entry : entries) {
    // A WCET is an upper bound: a fraction of a nanosecond rounds up.
    task.wcet_by_units.push_back(capped_task_time(entry, entry.as_positive_time(unit, Rounding::up)));
    // Its area A(i,k) = k·L(i,k) is a time of the analysis (Lemma 1 sums them): it must fit in
    // 64-bit nanoseconds (10^15 ns on 9224 units does not).
    const auto k = static_cast<std::int64_t>(task.wcet_by_units.size());
    if (task.wcet_by_units.back().count() > std::numeric_limits<std::int64_t>::max() / k) {
      entry.fail(fmt::format("makes the area A = {} x L = {} x {} ns, past 2^63 ns (about 292 years)", k, k,
                             task.wcet_by_units.back().count()));
    }
  }
  if (auto rho = node.find("rho")) task.rho = read_rho(*rho);
  if (auto allowed = node.find("allowed_units")) {
    std::vector<int> sizes;
    std::set<int> seen;
    for (const JsonNode& entry : allowed->items()) {
      const auto k = static_cast<int>(entry.as_int_in(1, units));
      if (k > static_cast<int>(task.wcet_by_units.size())) {
        entry.fail(fmt::format("has no WCET: wcet_by_units has only {} entries", task.wcet_by_units.size()));
      }
      if (!seen.insert(k).second) entry.fail("appears twice");
      sizes.push_back(k);
    }
    if (!seen.contains(1)) {
      allowed->fail("must contain 1 (a job must be able to start on any single free unit)");
    }
    std::sort(sizes.begin(), sizes.end());
    task.allowed_units = std::move(sizes);
  }
  if (auto deadline = node.find("deadline")) {
    // A deadline rounds down: never promise more time than the file gives.
    task.deadline = capped_task_time(*deadline, deadline->as_positive_time(unit, Rounding::down));
  }
  if (auto period = node.find("period"))
    timing.period = capped_task_time(*period, period->as_positive_time(unit, Rounding::down));
  if (auto c = node.find("cpu_before"))
    timing.cpu_before = capped_task_time(*c, c->as_nonnegative_time(unit, Rounding::up));
  if (auto c = node.find("cpu_after"))
    timing.cpu_after = capped_task_time(*c, c->as_nonnegative_time(unit, Rounding::up));
  if (auto c = node.find("copy_wait"))
    timing.copy_wait = capped_task_time(*c, c->as_nonnegative_time(unit, Rounding::up));
  return task;
}

}  // namespace

SmlpSystem parse_smlp_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  expect_format(root, kFormat);
  root.expect_object({"format", "time_unit", "platform", "rho", "tasks"});
  SmlpSystem system;
  system.time_unit = read_time_unit(root);
  system.platform = parse_platform(root.at("platform"));
  if (auto rho = root.find("rho")) system.rho = read_rho(*rho);
  const JsonNode tasks = root.at("tasks");
  const auto entries = tasks.items();
  if (entries.empty()) tasks.fail("must hold at least one task");
  check_task_count(tasks, entries.size());
  std::set<std::string> names;
  for (const JsonNode& entry : entries) {
    SmlpTaskTiming timing;
    SmlpTask task = read_task(entry, system.time_unit, system.platform.units(), timing);
    system.timing.push_back(timing);
    if (!names.insert(task.name).second) entry.at("name").fail("is the name of an earlier task");
    system.tasks.push_back(std::move(task));
  }
  return system;
}

SmlpSystem load_smlp_system(const std::string& path) { return parse_smlp_system(load_json_file(path), path); }

Json to_json(const SmlpSystem& system) {
  Json tasks = Json::array();
  for (std::size_t i = 0; i < system.tasks.size(); ++i) {
    const SmlpTask& task = system.tasks[i];
    const SmlpTaskTiming timing = i < system.timing.size() ? system.timing[i] : SmlpTaskTiming{};
    Json t{{"name", task.name}};
    Json wcet = Json::array();
    for (Nanos l : task.wcet_by_units) wcet.push_back(from_nanos(l, system.time_unit));
    t["wcet_by_units"] = std::move(wcet);
    if (task.rho) t["rho"] = *task.rho;
    if (task.allowed_units) t["allowed_units"] = *task.allowed_units;
    if (task.deadline) t["deadline"] = from_nanos(*task.deadline, system.time_unit);
    if (timing.period) t["period"] = from_nanos(*timing.period, system.time_unit);
    if (timing.cpu_before.count() > 0) t["cpu_before"] = from_nanos(timing.cpu_before, system.time_unit);
    if (timing.cpu_after.count() > 0) t["cpu_after"] = from_nanos(timing.cpu_after, system.time_unit);
    if (timing.copy_wait.count() > 0) t["copy_wait"] = from_nanos(timing.copy_wait, system.time_unit);
    tasks.push_back(std::move(t));
  }
  Json platform = find_platform_preset(system.platform.id) != nullptr &&
                          to_json(*find_platform_preset(system.platform.id)) == to_json(system.platform)
                      ? Json(system.platform.id)
                      : to_json(system.platform);
  return Json{{"format", kFormat},
              {"time_unit", std::string(to_string(system.time_unit))},
              {"platform", std::move(platform)},
              {"rho", system.rho},
              {"tasks", std::move(tasks)}};
}

}  // namespace gpurt

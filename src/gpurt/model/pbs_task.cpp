#include "gpurt/model/pbs_task.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

namespace {

constexpr std::string_view kFormat = "gpurt/pbs@1";

PbsTask read_task(const JsonNode& node, TimeUnit unit, const Platform& platform) {
  node.expect_object(
      {"name", "period", "deadline", "wcet", "blocks", "threads", "registers", "shared_memory", "slowdown"});
  PbsTask task;
  const JsonNode name = node.at("name");
  task.name = name.as_name();
  // A period is an exact spacing: round to the nearest nanosecond. A deadline rounds down and
  // a WCET up (never promise more time than the file gives).
  const JsonNode period = node.at("period");
  // Times are capped as in every task file (task_limits.hpp: 10^15 ns): beyond 2^53 ns a time
  // would pass through a double and round, so a WCET above its deadline could read as equal.
  task.period = capped_task_time(period, period.as_positive_time(unit, Rounding::nearest));
  const JsonNode wcet = node.at("wcet");
  task.wcet = capped_task_time(wcet, wcet.as_positive_time(unit, Rounding::up));
  // Without a deadline key the deadline is the period as written, rounded down like any deadline.
  task.deadline = period.as_positive_time(unit, Rounding::down);
  if (auto deadline = node.find("deadline")) {
    task.deadline = capped_task_time(*deadline, deadline->as_positive_time(unit, Rounding::down));
    if (task.deadline > task.period) {
      deadline->fail("must be <= period (PBS keeps at most one job of a task ready; see docs/pbs.md)");
    }
  }
  const JsonNode threads = node.at("threads");
  task.threads = static_cast<int>(threads.as_int_in(1, platform.max_threads_per_block));
  if (task.threads > platform.max_threads) {
    threads.fail(fmt::format("exceeds the {} threads of one SM", platform.max_threads));
  }
  const JsonNode blocks = node.at("blocks");
  task.blocks = static_cast<int>(blocks.as_int_in(1, std::numeric_limits<int>::max()));
  if (auto registers = node.find("registers")) {
    task.registers = static_cast<int>(registers->as_int_in(0, platform.registers));
    if (std::int64_t{task.registers} * task.threads > platform.registers) {
      registers->fail(
          fmt::format("× {} threads exceeds the {} registers of one SM", task.threads, platform.registers));
    }
  }
  if (auto smem = node.find("shared_memory")) {
    task.shared_memory = smem->as_int_in(0, platform.shared_memory);
  }
  if (auto slowdown = node.find("slowdown")) {
    task.slowdown = slowdown->as_number();
    if (!(task.slowdown >= 1.0)) slowdown->fail("must be >= 1 (interference never speeds a kernel up)");
  }
  const std::int64_t fit = max_resident_blocks(platform, task.shape());
  if (task.blocks > fit) {
    blocks.fail(
        fmt::format("cannot all be resident on {} at once (at most {} blocks of this shape): "
                    "the kernel can never start as a whole",
                    platform.id, fit));
  }
  return task;
}

PbsBatchTime read_batch(const JsonNode& node, TimeUnit unit, const std::map<std::string, int>& index) {
  node.expect_object({"tasks", "completion"});
  PbsBatchTime batch;
  const JsonNode tasks = node.at("tasks");
  std::set<int> seen;
  for (const JsonNode& entry : tasks.items()) {
    const std::string name = entry.as_string();
    const auto it = index.find(name);
    if (it == index.end()) entry.fail("is not the name of a task in \"tasks\"");
    if (!seen.insert(it->second).second) entry.fail("appears twice in this batch");
  }
  if (seen.size() < 2) tasks.fail("must name at least two tasks (a job alone takes its wcet)");
  batch.tasks.assign(seen.begin(), seen.end());
  const JsonNode completion = node.at("completion");
  batch.completion = capped_task_time(completion, completion.as_positive_time(unit, Rounding::up));
  if (batch.completion.count() > kMaxHyperperiodWork) completion.fail("is more than 2^60 ns (36 years)");
  return batch;
}

}  // namespace

BlockShape PbsTask::shape() const { return BlockShape{threads, shared_memory, registers * threads}; }

std::int64_t max_resident_blocks(const Platform& p, const BlockShape& s) {
  std::int64_t per_sm = p.max_blocks;
  if (s.threads > 0) per_sm = std::min<std::int64_t>(per_sm, p.max_threads / s.threads);
  if (s.registers > 0) per_sm = std::min<std::int64_t>(per_sm, p.registers / s.registers);
  if (s.shared_memory > 0) per_sm = std::min<std::int64_t>(per_sm, p.shared_memory / s.shared_memory);
  return per_sm * p.sms;
}

Nanos pbs_hyperperiod(const PbsSystem& system, std::int64_t max_jobs_per_task) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  std::int64_t h = 1;
  for (const PbsTask& task : system.tasks) {
    const std::int64_t p = task.period.count();
    const std::int64_t g = std::gcd(h, p);
    if (h / g > kLimit / p) throw Error("the hyperperiod (lcm of the periods) exceeds 2^62 ns");
    h = h / g * p;
  }
  long double work = 0;  // Σ jobs × C × s over the hyperperiod
  for (const PbsTask& task : system.tasks) {
    if (h / task.period.count() > max_jobs_per_task) {
      throw Error(
          fmt::format("task {} has {} jobs in the hyperperiod (more than {}, the most of one task the "
                      "PBS analyses take; --max-jobs does not raise it)",
                      task.name, h / task.period.count(), max_jobs_per_task));
    }
    work += static_cast<long double>(h / task.period.count()) * static_cast<long double>(task.wcet.count()) *
            static_cast<long double>(task.slowdown);
  }
  // Every time the analyses compute (a frame's end, a tail bound of the remaining work) is then
  // below 2^62 + 2^60 + 2^60 < 2^63: no sum can wrap.
  if (!(work <= static_cast<long double>(kMaxHyperperiodWork))) {
    throw Error(
        fmt::format("the jobs of one hyperperiod need {:.3g} ns of GPU time (Σ jobs × wcet × slowdown), "
                    "more than 2^60 ns (36 years)",
                    static_cast<double>(work)));
  }
  return Nanos{h};
}

PbsSystem parse_pbs_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  expect_format(root, kFormat);
  root.expect_object({"format", "time_unit", "platform", "tasks", "batches"});
  PbsSystem system;
  system.time_unit = read_time_unit(root);
  system.platform = parse_platform(root.at("platform"));
  if (system.platform.vendor == Vendor::amd && system.platform.shader_engines > 0) {
    // The eligibility oracle is NVIDIA's round-robin block allocation; the GCN dispatch of the
    // simulator (shader engines, CU locks, a lone kernel's resident bound) places blocks
    // otherwise, so a table certified with it did not run as certified (simulate-table: misses).
    root.at("platform")
        .fail(fmt::format("{} dispatches blocks through shader engines, which the PBS eligibility oracle "
                          "(NVIDIA's block allocation) does not model: use an NVIDIA platform",
                          system.platform.id));
  }
  const JsonNode tasks = root.at("tasks");
  const auto entries = tasks.items();
  if (entries.empty()) tasks.fail("must hold at least one task");
  if (entries.size() > 32) tasks.fail("holds more than 32 tasks (the search keeps job sets in 32-bit sets)");
  std::map<std::string, int> index;
  for (const JsonNode& entry : entries) {
    PbsTask task = read_task(entry, system.time_unit, system.platform);
    if (!index.emplace(task.name, static_cast<int>(system.tasks.size())).second) {
      entry.at("name").fail("is the name of an earlier task");
    }
    system.tasks.push_back(std::move(task));
  }
  if (auto batches = root.find("batches")) {
    std::set<std::vector<int>> seen;
    for (const JsonNode& entry : batches->items()) {
      PbsBatchTime batch = read_batch(entry, system.time_unit, index);
      // The batch ends when its last job does, and interference never speeds a kernel up
      // (slowdown >= 1): a completion below a member's wcet would let the search run it faster
      // than alone.
      for (const int t : batch.tasks) {
        const PbsTask& task = system.tasks[static_cast<std::size_t>(t)];
        if (batch.completion < task.wcet) {
          entry.at("completion")
              .fail(fmt::format(
                  "is less than the wcet of its task \"{}\" ({} {}): a batch ends when its last "
                  "job does, and no job runs faster beside others",
                  task.name, from_nanos(task.wcet, system.time_unit), to_string(system.time_unit)));
        }
      }
      if (!seen.insert(batch.tasks).second) {
        entry.at("tasks").fail("names the same set of tasks as an earlier batch (order does not matter)");
      }
      system.batches.push_back(std::move(batch));
    }
  }
  try {
    (void)pbs_hyperperiod(system);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    tasks.fail(e.what());
  }
  return system;
}

PbsSystem load_pbs_system(const std::string& path) { return parse_pbs_system(load_json_file(path), path); }

Json to_json(const PbsSystem& system) {
  const TimeUnit u = system.time_unit;
  Json tasks = Json::array();
  for (const PbsTask& t : system.tasks) {
    tasks.push_back(Json{{"name", t.name},
                         {"period", from_nanos(t.period, u)},
                         {"deadline", from_nanos(t.deadline, u)},
                         {"wcet", from_nanos(t.wcet, u)},
                         {"blocks", t.blocks},
                         {"threads", t.threads},
                         {"registers", t.registers},
                         {"shared_memory", t.shared_memory},
                         {"slowdown", t.slowdown}});
  }
  Json batches = Json::array();
  for (const PbsBatchTime& b : system.batches) {
    Json names = Json::array();
    for (int i : b.tasks) names.push_back(system.tasks[static_cast<std::size_t>(i)].name);
    batches.push_back(Json{{"tasks", std::move(names)}, {"completion", from_nanos(b.completion, u)}});
  }
  return Json{{"format", kFormat},
              {"time_unit", std::string(to_string(u))},
              {"platform", to_json(system.platform)},
              {"tasks", std::move(tasks)},
              {"batches", std::move(batches)}};
}

}  // namespace gpurt

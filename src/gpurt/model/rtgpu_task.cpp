#include "gpurt/model/rtgpu_task.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

namespace {

constexpr std::string_view kFormat = "gpurt/rtgpu@1";

// Every time is at most 10^15 ns (about 11.6 days). A task may still have any number of
// segments, so the analyses' sums saturate at 2^62 ns rather than rely on this (core/time.hpp).
constexpr Nanos kMaxTime{1'000'000'000'000'000};

Nanos capped(const JsonNode& node, Nanos t) {
  if (t > kMaxTime) node.fail("is too large (times are limited to 10^15 ns, about 11.6 days)");
  return t;
}

// [lo, hi]: lower bounds round down, upper bounds up (never claim a tighter range than given).
TimeBounds read_bounds(const JsonNode& node, TimeUnit unit, bool positive_hi) {
  const auto pair = node.items();
  if (pair.size() != 2) node.fail("must be [lo, hi]");
  TimeBounds b;
  b.lo = capped(pair[0], pair[0].as_nonnegative_time(unit, Rounding::down));
  b.hi = capped(pair[1], positive_hi ? pair[1].as_positive_time(unit, Rounding::up)
                                     : pair[1].as_nonnegative_time(unit, Rounding::up));
  if (pair[0].as_number() > pair[1].as_number()) node.fail("lower bound must be <= upper bound");
  return b;
}

std::vector<TimeBounds> read_bounds_list(const JsonNode& node, TimeUnit unit, bool positive_hi) {
  std::vector<TimeBounds> out;
  for (const JsonNode& entry : node.items()) out.push_back(read_bounds(entry, unit, positive_hi));
  return out;
}

RtgpuGpuSegment read_gpu(const JsonNode& node, TimeUnit unit) {
  node.expect_object({"work", "overhead", "alpha"});
  RtgpuGpuSegment g;
  g.work = read_bounds(node.at("work"), unit, true);
  if (auto o = node.find("overhead")) {
    g.overhead = capped(*o, o->as_nonnegative_time(unit, Rounding::up));
    if (g.overhead > g.work.hi)
      o->fail("must be <= the work's upper bound (the overhead is part of the work)");
  }
  if (auto a = node.find("alpha")) {
    g.alpha = a->as_number();
    if (!(g.alpha >= 1.0)) a->fail("must be >= 1 (interleaving never speeds a kernel up)");
    if (g.alpha > 100) a->fail("must be <= 100");
  }
  return g;
}

RtgpuTask read_task(const JsonNode& node, TimeUnit unit) {
  node.expect_object({"name", "period", "deadline", "priority", "cpu", "copy", "gpu"});
  RtgpuTask t;
  const JsonNode name = node.at("name");
  t.name = name.as_name();
  // A period is a minimum separation: rounding it down is the safe direction, as for deadlines.
  const JsonNode period = node.at("period");
  t.period = capped(period, period.as_positive_time(unit, Rounding::down));
  t.deadline = t.period;
  if (auto d = node.find("deadline")) {
    t.deadline = d->as_positive_time(unit, Rounding::down);
    if (t.deadline > t.period) d->fail("must be <= period (constrained deadlines, RTGPU §5.1)");
  }
  if (auto p = node.find("priority")) t.priority = static_cast<int>(p->as_int_in(1, 1'000'000'000));

  const JsonNode cpu = node.at("cpu");
  t.cpu = read_bounds_list(cpu, unit, true);
  if (t.cpu.empty()) cpu.fail("must hold at least one CPU segment (m_i >= 1)");
  const std::size_t m = t.cpu.size();

  const JsonNode copy = node.at("copy");
  t.copy = read_bounds_list(copy, unit, false);
  if (t.copy.size() != 2 * m - 2) {
    copy.fail(fmt::format("has {} segments; m_i = {} CPU segments need 2m_i - 2 = {}", t.copy.size(), m,
                          2 * m - 2));
  }
  const JsonNode gpu = node.at("gpu");
  for (const JsonNode& g : gpu.items()) t.gpu.push_back(read_gpu(g, unit));
  if (t.gpu.size() != m - 1) {
    gpu.fail(fmt::format("has {} segments; m_i = {} CPU segments need m_i - 1 = {}", t.gpu.size(), m, m - 1));
  }
  return t;
}

}  // namespace

std::vector<std::size_t> priority_order(const RtgpuSystem& system) {
  std::vector<std::size_t> order(system.tasks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return system.tasks[a].priority < system.tasks[b].priority;
  });
  return order;
}

RtgpuSystem parse_rtgpu_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  expect_format(root, kFormat);
  root.expect_object({"format", "time_unit", "platform", "virtual_sms_per_sm", "tasks"});
  RtgpuSystem s;
  s.time_unit = read_time_unit(root, TimeUnit::ms);
  s.platform = parse_platform(root.at("platform"));
  const auto vsms = root.find("virtual_sms_per_sm");
  if (vsms) s.virtual_sms_per_sm = static_cast<int>(vsms->as_int_in(1, 64));
  // RTGPU keeps virtual_sms_per_sm persistent blocks resident on every SM (its virtual SMs): a
  // platform that holds fewer cannot run it (the system reader's derivation refuses it too).
  if (s.platform.max_blocks < s.virtual_sms_per_sm) {
    const std::string why = fmt::format("RTGPU runs {} persistent blocks per SM and {} holds {}",
                                        s.virtual_sms_per_sm, s.platform.id, s.platform.max_blocks);
    if (vsms) vsms->fail(why);
    root.at("platform").fail(why + " (virtual_sms_per_sm defaults to 2)");
  }

  const JsonNode tasks = root.at("tasks");
  const auto entries = tasks.items();
  if (entries.empty()) tasks.fail("must hold at least one task");
  check_task_count(tasks, entries.size());
  std::set<std::string> names;
  std::set<int> priorities;
  std::size_t with_priority = 0;
  for (const JsonNode& entry : entries) {
    RtgpuTask t = read_task(entry, s.time_unit);
    if (!names.insert(t.name).second) entry.at("name").fail("is the name of an earlier task");
    if (t.priority != 0) {
      ++with_priority;
      if (!priorities.insert(t.priority).second) {
        entry.at("priority").fail("is the priority of an earlier task (priorities must be unique)");
      }
    }
    s.tasks.push_back(std::move(t));
  }
  if (with_priority != 0 && with_priority != s.tasks.size()) {
    tasks.fail(
        fmt::format("{} of {} tasks have a priority: give every task one, or none "
                    "(deadline-monotonic)",
                    with_priority, s.tasks.size()));
  }
  if (with_priority == 0) {
    // Deadline-monotonic (RTGPU Table 1): shorter deadline = higher priority; ties by file order.
    std::vector<std::size_t> order(s.tasks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return s.tasks[a].deadline < s.tasks[b].deadline; });
    for (std::size_t rank = 0; rank < order.size(); ++rank)
      s.tasks[order[rank]].priority = static_cast<int>(rank + 1);
  }
  return s;
}

RtgpuSystem load_rtgpu_system(const std::string& path) {
  return parse_rtgpu_system(load_json_file(path), path);
}

void validate(const RtgpuSystem& s) {
  auto bad = [](const std::string& what) { throw Error("rtgpu system: " + what); };
  validate(s.platform);
  if (s.virtual_sms_per_sm < 1) bad("virtual_sms_per_sm must be >= 1");
  if (s.tasks.empty()) bad("no tasks");
  std::set<int> priorities;
  for (const RtgpuTask& t : s.tasks) {
    const std::size_t m = t.cpu.size();
    auto ctx = [&](std::string_view what) { return fmt::format("task \"{}\": {}", t.name, what); };
    if (m == 0) bad(ctx("no CPU segment"));
    if (t.copy.size() != 2 * m - 2) bad(ctx("copy segment count must be 2m-2"));
    if (t.gpu.size() != m - 1) bad(ctx("GPU segment count must be m-1"));
    if (t.period <= Nanos{0} || t.deadline <= Nanos{0} || t.deadline > t.period || t.period > kMaxTime) {
      bad(ctx("need 0 < D <= T <= 10^15 ns"));
    }
    if (t.priority < 1 || !priorities.insert(t.priority).second)
      bad(ctx("priorities must be unique and >= 1"));
    for (const TimeBounds& b : t.cpu) {
      if (b.lo < Nanos{0} || b.lo > b.hi || b.hi <= Nanos{0})
        bad(ctx("CPU bounds need 0 <= lo <= hi, hi > 0"));
    }
    for (const TimeBounds& b : t.copy) {
      if (b.lo < Nanos{0} || b.lo > b.hi || b.hi > kMaxTime)
        bad(ctx("copy bounds need 0 <= lo <= hi <= 10^15 ns"));
    }
    for (const RtgpuGpuSegment& g : t.gpu) {
      if (g.work.lo < Nanos{0} || g.work.lo > g.work.hi || g.work.hi <= Nanos{0})
        bad(ctx("bad GPU work bounds"));
      if (g.overhead < Nanos{0} || g.overhead > g.work.hi) bad(ctx("GPU overhead must be in [0, work hi]"));
      if (!(g.alpha >= 1.0 && g.alpha <= 100)) bad(ctx("alpha must be in [1, 100]"));
    }
  }
}

Json to_json(const RtgpuSystem& s) {
  const TimeUnit u = s.time_unit;
  auto pair = [u](const TimeBounds& b) { return Json::array({from_nanos(b.lo, u), from_nanos(b.hi, u)}); };
  Json tasks = Json::array();
  for (const RtgpuTask& t : s.tasks) {
    Json cpu = Json::array(), copy = Json::array(), gpu = Json::array();
    for (const TimeBounds& b : t.cpu) cpu.push_back(pair(b));
    for (const TimeBounds& b : t.copy) copy.push_back(pair(b));
    for (const RtgpuGpuSegment& g : t.gpu) {
      gpu.push_back(
          Json{{"work", pair(g.work)}, {"overhead", from_nanos(g.overhead, u)}, {"alpha", g.alpha}});
    }
    tasks.push_back(Json{{"name", t.name},
                         {"period", from_nanos(t.period, u)},
                         {"deadline", from_nanos(t.deadline, u)},
                         {"priority", t.priority},
                         {"cpu", std::move(cpu)},
                         {"copy", std::move(copy)},
                         {"gpu", std::move(gpu)}});
  }
  const Platform* preset = find_platform_preset(s.platform.id);
  Json platform = preset != nullptr && to_json(*preset) == to_json(s.platform) ? Json(s.platform.id)
                                                                               : to_json(s.platform);
  return Json{{"format", kFormat},
              {"time_unit", std::string(to_string(u))},
              {"platform", std::move(platform)},
              {"virtual_sms_per_sm", s.virtual_sms_per_sm},
              {"tasks", std::move(tasks)}};
}

}  // namespace gpurt

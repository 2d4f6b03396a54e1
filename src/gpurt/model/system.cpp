// gpurt/system@1: reading, writing, and each existing model read into a system (the derivations
// the other way are in system_derive.cpp). Format and rules: docs/report.md "System format".
#include "gpurt/model/system.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

namespace {

constexpr std::string_view kFormat = "gpurt/system@1";
// As in gpurt/rtgpu@1: every time is at most 10^15 ns (about 11.6 days), so sums over the
// bounded numbers of tasks and segments below stay far inside 64 bits.
constexpr Nanos kMaxTime{1'000'000'000'000'000};
constexpr std::size_t kMaxTasks = 1024;
constexpr std::size_t kMaxSegments = 1024;

Nanos capped(const JsonNode& node, Nanos t) {
  if (t > kMaxTime) node.fail("is too large (times are limited to 10^15 ns, about 11.6 days)");
  return t;
}

// A duration: a number (exactly known) or [lo, hi]. Lower bounds round down, upper bounds up.
TimeBounds read_span(const JsonNode& node, TimeUnit unit, bool positive_hi) {
  TimeBounds b;
  if (node.is_number()) {
    b.lo = capped(node, node.as_nonnegative_time(unit, Rounding::down));
    b.hi = capped(node, positive_hi ? node.as_positive_time(unit, Rounding::up)
                                    : node.as_nonnegative_time(unit, Rounding::up));
    return b;
  }
  if (!node.is_array()) node.fail("must be a time or [lo, hi]");
  const auto pair = node.items();
  if (pair.size() != 2) node.fail("must be a time or [lo, hi]");
  b.lo = capped(pair[0], pair[0].as_nonnegative_time(unit, Rounding::down));
  b.hi = capped(pair[1], positive_hi ? pair[1].as_positive_time(unit, Rounding::up)
                                     : pair[1].as_nonnegative_time(unit, Rounding::up));
  if (pair[0].as_number() > pair[1].as_number()) node.fail("lower bound must be <= upper bound");
  return b;
}

// A factor >= 1 (ρ, α, slowdown); α is also <= 100 as in gpurt/rtgpu@1.
std::optional<double> read_factor(const std::optional<JsonNode>& node, std::string_view why,
                                  bool at_most_100) {
  if (!node) return std::nullopt;
  const double v = node->as_number();
  if (!(v >= 1.0)) node->fail(fmt::format("must be >= 1 ({})", why));
  if (at_most_100 && v > 100) node->fail("must be <= 100");
  return v;
}

SystemKernel read_kernel(const JsonNode& node, TimeUnit unit, const Platform& platform) {
  node.expect_object({"blocks", "threads", "registers", "shared_memory", "wcet", "wcet_by_units", "rho",
                      "allowed_units", "work", "overhead", "alpha", "workload", "slowdown"});
  SystemKernel k;
  if (auto v = node.find("blocks"))
    k.blocks = static_cast<int>(v->as_int_in(1, std::numeric_limits<int>::max()));
  if (auto v = node.find("threads"))
    k.threads = static_cast<int>(v->as_int_in(1, platform.max_threads_per_block));
  if (auto v = node.find("registers")) {
    k.registers = static_cast<int>(v->as_int_in(0, platform.registers));
    if (std::int64_t{k.registers} * std::max(k.threads, 1) > platform.registers) {
      v->fail(fmt::format("× {} threads exceeds the {} registers of one SM", k.threads, platform.registers));
    }
  }
  if (auto v = node.find("shared_memory")) k.shared_memory = v->as_int_in(0, platform.shared_memory);
  if (auto v = node.find("wcet")) k.wcet = capped(*v, v->as_positive_time(unit, Rounding::up));
  if (auto v = node.find("wcet_by_units")) {
    const auto entries = v->items();
    if (entries.empty()) v->fail("must hold L(i,1) at least");
    if (entries.size() > static_cast<std::size_t>(platform.units())) {
      v->fail(
          fmt::format("has {} entries but the platform has only {} units", entries.size(), platform.units()));
    }
    for (const JsonNode& e : entries)
      k.wcet_by_units.push_back(capped(e, e.as_positive_time(unit, Rounding::up)));
  }
  k.rho = read_factor(node.find("rho"), "eq. 4 compares against the single-unit area", false);
  if (auto allowed = node.find("allowed_units")) {
    std::set<int> seen;
    for (const JsonNode& e : allowed->items()) {
      const auto units = static_cast<int>(e.as_int_in(1, platform.units()));
      if (units > static_cast<int>(k.wcet_by_units.size())) {
        e.fail(fmt::format("has no WCET: wcet_by_units has {} entries", k.wcet_by_units.size()));
      }
      if (!seen.insert(units).second) e.fail("appears twice");
    }
    if (!seen.contains(1))
      allowed->fail("must contain 1 (a job must be able to start on any single free unit)");
    k.allowed_units = std::vector<int>(seen.begin(), seen.end());
  }
  if (auto v = node.find("work")) k.work = read_span(*v, unit, true);
  if (auto v = node.find("overhead")) {
    if (!k.work) v->fail("needs \"work\" (GL^ is part of the RTGPU work)");
    k.overhead = capped(*v, v->as_nonnegative_time(unit, Rounding::up));
    if (k.overhead > k.work->hi)
      v->fail("must be <= the work's upper bound (the overhead is part of the work)");
  }
  if (auto v = node.find("alpha")) {
    if (!k.work) v->fail("needs \"work\" (α inflates the RTGPU work)");
    k.alpha = *read_factor(v, "interleaving never speeds a kernel up", true);
  }
  if (auto v = node.find("workload"))
    k.workload = capped_workload(*v, v->as_positive_time(unit, Rounding::up),
                                 std::int64_t{std::max(k.blocks, 1)} * std::max(k.threads, 1));
  if (auto v = read_factor(node.find("slowdown"), "interference never speeds a kernel up", false))
    k.slowdown = *v;
  if (!k.wcet && k.wcet_by_units.empty() && !k.work && !k.workload) {
    node.fail("needs a time: \"wcet\", \"wcet_by_units\", \"work\" or \"workload\"");
  }
  return k;
}

SystemSegment read_segment(const JsonNode& node, TimeUnit unit, const Platform& platform) {
  if (!node.is_object()) node.fail("must be an object with one of \"cpu\", \"h2d\", \"d2h\", \"kernel\"");
  node.expect_object({"cpu", "h2d", "d2h", "kernel"});
  if (node.json().size() != 1) node.fail("must hold exactly one of \"cpu\", \"h2d\", \"d2h\", \"kernel\"");
  SystemSegment s;
  if (auto v = node.find("kernel")) {
    s.kind = SegmentKind::kernel;
    s.kernel = read_kernel(*v, unit, platform);
    return s;
  }
  for (SegmentKind kind : {SegmentKind::cpu, SegmentKind::h2d, SegmentKind::d2h}) {
    if (auto v = node.find(to_string(kind))) {
      s.kind = kind;
      s.time = read_span(*v, unit, false);
      return s;
    }
  }
  node.fail("must hold exactly one of \"cpu\", \"h2d\", \"d2h\", \"kernel\"");
}

SystemTask read_task(const JsonNode& node, TimeUnit unit, const Platform& platform) {
  node.expect_object({"name", "period", "deadline", "priority", "segments", "copy_wait"});
  SystemTask t;
  const JsonNode name = node.at("name");
  t.name = name.as_name();
  // A period is a minimum separation and a deadline a promise: both round down.
  if (auto v = node.find("period")) t.period = capped(*v, v->as_positive_time(unit, Rounding::down));
  if (auto v = node.find("deadline")) t.deadline = capped(*v, v->as_positive_time(unit, Rounding::down));
  if (auto v = node.find("priority")) t.priority = static_cast<int>(v->as_int_in(1, 1'000'000'000));
  // A wait is a worst case: it rounds up.
  if (auto v = node.find("copy_wait")) t.copy_wait = capped(*v, v->as_nonnegative_time(unit, Rounding::up));
  const JsonNode segments = node.at("segments");
  const auto entries = segments.items();
  if (entries.empty()) segments.fail("must hold at least one segment");
  if (entries.size() > kMaxSegments) segments.fail(fmt::format("holds more than {} segments", kMaxSegments));
  for (const JsonNode& e : entries) t.segments.push_back(read_segment(e, unit, platform));
  return t;
}

Json span_json(const TimeBounds& b, TimeUnit u) {
  if (b.lo == b.hi) return from_nanos(b.hi, u);
  return Json::array({from_nanos(b.lo, u), from_nanos(b.hi, u)});
}

Json kernel_json(const SystemKernel& k, TimeUnit u) {
  Json j = Json::object();
  if (k.blocks > 0) j["blocks"] = k.blocks;
  if (k.threads > 0) j["threads"] = k.threads;
  if (k.registers > 0) j["registers"] = k.registers;
  if (k.shared_memory > 0) j["shared_memory"] = k.shared_memory;
  if (k.wcet) j["wcet"] = from_nanos(*k.wcet, u);
  if (!k.wcet_by_units.empty()) {
    Json l = Json::array();
    for (Nanos t : k.wcet_by_units) l.push_back(from_nanos(t, u));
    j["wcet_by_units"] = std::move(l);
  }
  if (k.rho) j["rho"] = *k.rho;
  if (k.allowed_units) j["allowed_units"] = *k.allowed_units;
  if (k.work) {
    j["work"] = Json::array({from_nanos(k.work->lo, u), from_nanos(k.work->hi, u)});
    j["overhead"] = from_nanos(k.overhead, u);
    j["alpha"] = k.alpha;
  }
  if (k.workload) j["workload"] = from_nanos(*k.workload, u);
  if (k.slowdown != 1.0) j["slowdown"] = k.slowdown;
  return j;
}

}  // namespace

std::string_view to_string(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::cpu:
      return "cpu";
    case SegmentKind::h2d:
      return "h2d";
    case SegmentKind::d2h:
      return "d2h";
    case SegmentKind::kernel:
      return "kernel";
  }
  return "?";
}

int SystemTask::kernels() const {
  return static_cast<int>(std::count_if(segments.begin(), segments.end(), [](const SystemSegment& s) {
    return s.kind == SegmentKind::kernel;
  }));
}

System parse_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  expect_format(root, kFormat);
  root.expect_object({"format", "time_unit", "platform", "rho", "virtual_sms_per_sm", "gpu_threads",
                      "max_block", "tasks", "batches"});
  System s;
  s.time_unit = read_time_unit(root);
  s.platform = parse_platform(root.at("platform"));
  if (auto v = read_factor(root.find("rho"), "eq. 4 compares against the single-unit area", false))
    s.rho = *v;
  if (auto v = root.find("virtual_sms_per_sm")) s.virtual_sms_per_sm = static_cast<int>(v->as_int_in(1, 64));
  if (auto v = root.find("gpu_threads")) s.gpu_threads = v->as_int_in(1, std::int64_t{1} << 40);
  if (auto v = root.find("max_block")) s.max_block = static_cast<int>(v->as_int_in(1, 1 << 20));

  const JsonNode tasks = root.at("tasks");
  const auto entries = tasks.items();
  if (entries.empty()) tasks.fail("must hold at least one task");
  if (entries.size() > kMaxTasks) tasks.fail(fmt::format("holds more than {} tasks", kMaxTasks));
  std::map<std::string, int> index;
  std::set<int> priorities;
  std::size_t with_priority = 0;
  for (const JsonNode& e : entries) {
    SystemTask t = read_task(e, s.time_unit, s.platform);
    if (!index.emplace(t.name, static_cast<int>(s.tasks.size())).second) {
      e.at("name").fail("is the name of an earlier task");
    }
    if (t.priority) {
      ++with_priority;
      if (!priorities.insert(*t.priority).second) e.at("priority").fail("is the priority of an earlier task");
    }
    s.tasks.push_back(std::move(t));
  }
  if (with_priority != 0 && with_priority != s.tasks.size()) {
    tasks.fail(fmt::format("{} of {} tasks have a priority: give every task one, or none", with_priority,
                           s.tasks.size()));
  }
  if (auto batches = root.find("batches")) {
    std::set<std::vector<int>> seen;
    for (const JsonNode& b : batches->items()) {
      b.expect_object({"tasks", "completion"});
      const JsonNode names = b.at("tasks");
      std::set<int> members;
      for (const JsonNode& n : names.items()) {
        const auto it = index.find(n.as_string());
        if (it == index.end()) n.fail("is not the name of a task in \"tasks\"");
        if (!members.insert(it->second).second) n.fail("appears twice in this batch");
      }
      if (members.size() < 2) names.fail("must name at least two tasks (a job alone takes its wcet)");
      PbsBatchTime bt;
      bt.tasks.assign(members.begin(), members.end());
      if (!seen.insert(bt.tasks).second) names.fail("names the same set of tasks as an earlier batch");
      bt.completion =
          capped(b.at("completion"), b.at("completion").as_positive_time(s.time_unit, Rounding::up));
      s.batches.push_back(std::move(bt));
    }
  }
  return s;
}

System load_system(const std::string& path) { return parse_system(load_json_file(path), path); }

Json to_json(const System& s) {
  const TimeUnit u = s.time_unit;
  Json tasks = Json::array();
  for (const SystemTask& t : s.tasks) {
    Json j{{"name", t.name}};
    if (t.period) j["period"] = from_nanos(*t.period, u);
    if (t.deadline) j["deadline"] = from_nanos(*t.deadline, u);
    if (t.priority) j["priority"] = *t.priority;
    if (t.copy_wait > Nanos{0}) j["copy_wait"] = from_nanos(t.copy_wait, u);
    Json segments = Json::array();
    for (const SystemSegment& seg : t.segments) {
      const std::string key(to_string(seg.kind));
      segments.push_back(
          Json{{key, seg.kind == SegmentKind::kernel ? kernel_json(seg.kernel, u) : span_json(seg.time, u)}});
    }
    j["segments"] = std::move(segments);
    tasks.push_back(std::move(j));
  }
  const Platform* preset = find_platform_preset(s.platform.id);
  Json out{{"format", kFormat},
           {"time_unit", std::string(to_string(u))},
           {"platform", preset != nullptr && to_json(*preset) == to_json(s.platform) ? Json(s.platform.id)
                                                                                     : to_json(s.platform)},
           {"rho", s.rho},
           {"virtual_sms_per_sm", s.virtual_sms_per_sm}};
  if (s.gpu_threads) out["gpu_threads"] = *s.gpu_threads;
  if (s.max_block) out["max_block"] = *s.max_block;
  out["tasks"] = std::move(tasks);
  if (!s.batches.empty()) {
    Json batches = Json::array();
    for (const PbsBatchTime& b : s.batches) {
      Json names = Json::array();
      for (int i : b.tasks) names.push_back(s.tasks.at(static_cast<std::size_t>(i)).name);
      batches.push_back(Json{{"tasks", std::move(names)}, {"completion", from_nanos(b.completion, u)}});
    }
    out["batches"] = std::move(batches);
  }
  return out;
}

System parse_any_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  const JsonNode format = root.at("format");
  const std::string f = format.as_string();
  if (f == kFormat) return parse_system(document, file);
  if (f == "gpurt/smlp@1") return from_smlp(parse_smlp_system(document, file));
  if (f == "gpurt/rtgpu@1") return from_rtgpu(parse_rtgpu_system(document, file));
  if (f == "gpurt/pbs@1") return from_pbs(parse_pbs_system(document, file));
  if (f == "gpurt/fifo@1") return from_fifo(parse_fifo_system(document, file));
  format.fail(
      "is not a task format (gpurt/system@1, gpurt/smlp@1, gpurt/rtgpu@1, gpurt/pbs@1, gpurt/fifo@1)");
}

System load_any_system(const std::string& path) { return parse_any_system(load_json_file(path), path); }

}  // namespace gpurt

// gpurt analyze rtgpu FILE / gpurt analyze fifo FILE (RTGPU seed §5-6; FIFO model seed §V).
#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/analysis/fifo.hpp"
#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct RtgpuArgs {
  std::string file;
  std::string method = "rtgpu";
  std::string search = "exact";
  bool json = false;
  bool check = false;
};

Json optional_time(const std::optional<Nanos>& t, TimeUnit u) {
  return t ? Json(from_nanos(*t, u)) : Json(nullptr);
}

Json rtgpu_json(const RtgpuResult& r, TimeUnit u) {
  Json allocation = Json::object();
  Json tasks = Json::array();
  for (const RtgpuTaskResult& t : r.tasks) {
    allocation[t.name] = t.virtual_sms;
    tasks.push_back(Json{{"name", t.name},
                         {"response_bound", optional_time(t.bounds.response, u)},
                         {"deadline", from_nanos(t.deadline, u)},
                         {"schedulable", t.bounds.schedulable}});
  }
  return Json{{"schedulable", r.schedulable},
              {"method", std::string(to_string(r.method))},
              {"allocation", std::move(allocation)},
              {"tasks", std::move(tasks)}};
}

std::string maybe(const std::optional<Nanos>& t, TimeUnit u) { return t ? format_time(*t, u) : "> D"; }

std::string rtgpu_table(const RtgpuSystem& s, const RtgpuResult& r, const std::string& file) {
  const TimeUnit u = s.time_unit;
  std::string out = fmt::format("RTGPU analysis (method {}, search {}) of {}\n", to_string(r.method),
                                to_string(r.search), file);
  out += fmt::format("platform {}: GN = {} physical SMs = {} virtual SMs; times in {}\n\n", s.platform.id,
                     r.physical_sms, r.physical_sms * r.virtual_sms_per_sm, to_string(u));
  Table t({"task", "prio", "vSMs", "GPU hi", "R1", "R2", "response", "lower", "deadline", "ok"},
          {false, true, true, true, true, true, true, true, true, false});
  for (const RtgpuTaskResult& x : r.tasks) {
    Nanos gpu{0};
    for (const TimeBounds& g : x.bounds.gpu) gpu += g.hi;
    t.add({x.name, std::to_string(x.priority),
           r.method == RtgpuMethod::self_suspension ? "all" : std::to_string(x.virtual_sms),
           format_time(gpu, u), maybe(x.bounds.r1, u), maybe(x.bounds.r2, u), maybe(x.bounds.response, u),
           format_time(x.bounds.lower, u), format_time(x.deadline, u), x.bounds.schedulable ? "yes" : "NO"});
  }
  out += t.render();
  out += fmt::format("\nschedulable: {}", r.schedulable ? "yes" : "NO");
  if (r.method != RtgpuMethod::self_suspension) {
    out += fmt::format(
        " ({} analyses; {})", r.allocations_tried,
        r.allocation_found ? "allocation found" : "no allocation works; shown: where the search stopped");
  }
  out += "\n";
  for (const RtgpuTaskResult& x : r.tasks) {
    if (!x.bounds.schedulable) out += fmt::format("  {}: {}\n", x.name, x.bounds.reason);
  }
  return out;
}

void run_rtgpu(const RtgpuArgs& a) {
  RtgpuOptions options;
  if (a.method == "rtgpu") {
    options.method = RtgpuMethod::rtgpu;
  } else if (a.method == "self-suspension") {
    options.method = RtgpuMethod::self_suspension;
  } else {
    options.method = RtgpuMethod::stgm;
  }
  options.search = a.search == "brute"    ? RtgpuSearch::brute
                   : a.search == "greedy" ? RtgpuSearch::greedy
                                          : RtgpuSearch::exact;
  const RtgpuSystem system = load_rtgpu_system(a.file);
  const RtgpuResult result = analyse_rtgpu(system, options);
  // Everything is computed before anything is printed: bad input never yields partial output.
  if (a.json) {
    fmt::print("{}\n", rtgpu_json(result, system.time_unit).dump(2));
  } else {
    fmt::print("{}", rtgpu_table(system, result, a.file));
  }
  if (a.check && !result.schedulable) exit_status() = 1;
}

struct FifoArgs {
  std::string file;
  bool json = false;
};

void run_fifo(const FifoArgs& a) {
  const FifoSystem system = load_fifo_system(a.file);
  const FifoResult r = analyse_fifo(system);
  if (a.json) {
    fmt::print("{}\n", Json{{"total_utilization", r.total_utilization},
                            {"b_max", r.max_block},
                            {"gpu_threads", r.gpu_threads},
                            {"limit", r.limit},
                            {"at_or_above_limit", r.at_or_above_limit},
                            {"overloaded", r.overloaded}}
                           .dump(2));
    return;
  }
  std::string out = fmt::format("FIFO model (FIFO model seed, Theorem 1) of {}\n", a.file);
  out += fmt::format("m = {} GPU threads, b_max = {}, U_sum = {:.4f}, m - b_max + 1 = {}\n", r.gpu_threads,
                     r.max_block, r.total_utilization, format_number(r.limit));
  if (r.overloaded) {
    out += "U_sum > m: the GPU is overloaded; response times grow without bound\n";
  } else if (r.at_or_above_limit) {
    out += "U_sum >= m - b_max + 1: Theorem 1 shows systems in this region with unbounded response times\n";
  } else {
    out +=
        "U_sum < m - b_max + 1: below Theorem 1's limit (the seed proves no bound here; see docs/rtgpu.md)\n";
  }
  fmt::print("{}", out);
}

}  // namespace

void add_analyze_rtgpu(CLI::App& analyze) {
  auto* rtgpu = analyze.add_subcommand(
      "rtgpu", "RTGPU federated GPU + fixed-priority CPU/bus bounds (RTGPU seed §5, Theorem 5.6)");
  rtgpu->footer(
      "File: {\"format\": \"gpurt/rtgpu@1\", \"time_unit\": \"ms\", \"platform\": \"gtx1080ti\",\n"
      "       \"virtual_sms_per_sm\": 2, \"tasks\": [{\"name\", \"period\", \"deadline\"?, \"priority\"?,\n"
      "       \"cpu\": [[lo,hi],...], \"copy\": [[lo,hi],...], \"gpu\": [{\"work\": [lo,hi], \"overhead\", "
      "\"alpha\"}]}]}\n"
      "Example:\n  gpurt analyze rtgpu examples/rtgpu/two-tasks.json --method rtgpu --search exact --json");
  auto args = std::make_shared<RtgpuArgs>();
  rtgpu->add_option("FILE", args->file, "gpurt/rtgpu@1 task file")->required();
  rtgpu->add_option("--method", args->method, "rtgpu (default), self-suspension or stgm")
      ->check(CLI::IsMember({"rtgpu", "self-suspension", "stgm"}));
  rtgpu->add_option("--search", args->search, "SM allocation search: exact (default), greedy or brute")
      ->check(CLI::IsMember({"brute", "greedy", "exact"}));
  rtgpu->add_flag("--json", args->json, "Print JSON instead of a table");
  rtgpu->add_flag("--check", args->check, "Exit 1 when the system is not schedulable");
  rtgpu->callback([args] { run_rtgpu(*args); });

  auto* fifo = analyze.add_subcommand("fifo", "FIFO GPU model: U_sum against Theorem 1's m - b_max + 1");
  fifo->footer(
      "File: {\"format\": \"gpurt/fifo@1\", \"time_unit\": \"ms\", \"gpu_threads\": 4096,\n"
      "       \"tasks\": [{\"name\", \"wcet\", \"period\", \"grid\", \"block\"}]}\n"
      "Example:\n  gpurt analyze fifo examples/fifo/example2.json");
  auto fargs = std::make_shared<FifoArgs>();
  fifo->add_option("FILE", fargs->file, "gpurt/fifo@1 task file")->required();
  fifo->add_flag("--json", fargs->json, "Print JSON instead of text");
  fifo->callback([fargs] { run_fifo(*fargs); });
}

}  // namespace gpurt::cli

// gpurt analyze rtgpu FILE / gpurt analyze fifo FILE (RTGPU seed §5-6; FIFO model seed §V).
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/analysis/fifo.hpp"
#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/sim/fifo_sim.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct RtgpuArgs {
  std::string file;
  std::string method = "rtgpu";
  std::string search = "exact";
  std::int64_t max_analyses = RtgpuOptions{}.analysis_limit;
  double max_seconds = RtgpuOptions{}.max_seconds;
  bool json = false;
  bool check = false;
};

Json optional_time(const std::optional<Nanos>& t, TimeUnit u) {
  return t ? Json(from_nanos(*t, u)) : Json(nullptr);
}

// RTGPU eq. (10) for the allocation shown; none for the methods that give every kernel the whole GPU,
// and none when the allocation does not fit the GPU (more tasks with GPU segments than SMs: each is
// shown with one SM, and a gain for SMs the GPU does not have would be meaningless).
std::optional<double> throughput_gain(const RtgpuSystem& s, const RtgpuResult& r) {
  if (uses_whole_gpu(r.method)) return std::nullopt;
  std::vector<int> sms;
  std::int64_t used = 0;
  for (const RtgpuTaskResult& t : r.tasks) {
    sms.push_back(t.physical_sms);
    used += t.physical_sms;
  }
  if (used > s.platform.sms) return std::nullopt;
  return rtgpu_throughput_gain(s, sms);
}

Json rtgpu_json(const RtgpuSystem& s, const RtgpuResult& r, TimeUnit u) {
  Json allocation = Json::object();
  Json tasks = Json::array();
  for (const RtgpuTaskResult& t : r.tasks) {
    allocation[t.name] = t.virtual_sms;
    tasks.push_back(Json{{"name", t.name},
                         {"response_bound", optional_time(t.bounds.response, u)},
                         {"deadline", from_nanos(t.deadline, u)},
                         {"schedulable", t.bounds.schedulable},
                         {"analysable", t.analysable}});
  }
  const std::optional<double> gain = throughput_gain(s, r);
  return Json{{"schedulable", r.schedulable},
              {"method", std::string(to_string(r.method))},
              {"allocation", std::move(allocation)},
              {"throughput_gain", gain ? Json(*gain) : Json(nullptr)},
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
           uses_whole_gpu(r.method) ? "all" : std::to_string(x.virtual_sms), format_time(gpu, u),
           maybe(x.bounds.r1, u), maybe(x.bounds.r2, u), maybe(x.bounds.response, u),
           format_time(x.bounds.lower, u), format_time(x.deadline, u),
           !x.analysable          ? "n/a"
           : x.bounds.schedulable ? "yes"
                                  : "NO"});
  }
  out += t.render();
  out += fmt::format("\nschedulable: {}", r.schedulable ? "yes" : "NO");
  if (!uses_whole_gpu(r.method)) {
    out += fmt::format(
        " ({} analyses; {})", r.allocations_tried,
        r.allocation_found ? "allocation found" : "no allocation works; shown: where the search stopped");
  }
  out += "\n";
  if (const std::optional<double> gain = throughput_gain(s, r)) {
    out += fmt::format("virtual-SM throughput gain (eq. 10) of this allocation: {:+.1f} %\n", *gain * 100);
  }
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
  } else if (a.method == "gcaps-rr") {
    options.method = RtgpuMethod::gcaps_rr;
  } else {
    options.method = RtgpuMethod::stgm;
  }
  options.search = a.search == "brute"    ? RtgpuSearch::brute
                   : a.search == "greedy" ? RtgpuSearch::greedy
                                          : RtgpuSearch::exact;
  options.analysis_limit = a.max_analyses;
  options.max_seconds = a.max_seconds;
  const RtgpuSystem system = load_rtgpu_system(a.file);
  const RtgpuResult result = analyse_rtgpu(system, options);
  // Everything is computed before anything is printed: bad input never yields partial output.
  if (a.json) {
    fmt::print("{}\n", rtgpu_json(system, result, system.time_unit).dump(2));
  } else {
    fmt::print("{}", rtgpu_table(system, result, a.file));
  }
  if (a.check && !result.schedulable) exit_status() = 1;
}

struct FifoArgs {
  std::string file;
  bool json = false;
  bool check = false;
  std::int64_t simulate = 0;
  std::int64_t max_jobs = 10'000'000;    ///< tasks x --simulate (every response time is kept)
  std::int64_t max_blocks = 16'777'216;  ///< Σ --simulate x grid: the simulator's work and a kernel's blocks
  std::uint64_t seed = 1;
  bool seeded = false;  ///< --seed given: random first releases
};

Json fifo_simulation_json(const FifoSimResult& sim, const FifoArgs& a, TimeUnit u) {
  Json tasks = Json::array();
  for (const FifoTaskSim& t : sim.tasks) {
    Json responses = Json::array();
    for (Nanos x : t.response) responses.push_back(from_nanos(x, u));
    tasks.push_back(Json{{"name", t.name},
                         {"first_release", from_nanos(t.first_release, u)},
                         {"max_response", from_nanos(t.worst, u)},
                         {"mean_response", from_nanos(t.mean, u)},
                         {"responses", std::move(responses)}});
  }
  return Json{{"simulated", true},
              {"jobs", a.simulate},
              {"offsets", a.seeded ? "random" : "synchronous"},
              {"seed", a.seeded ? Json(a.seed) : Json(nullptr)},
              {"tasks", std::move(tasks)}};
}

std::string fifo_simulation_table(const FifoSystem& s, const FifoSimResult& sim, const FifoArgs& a) {
  const TimeUnit u = s.time_unit;
  std::string out = fmt::format(
      "\nsimulated: {} jobs per task on one pool of {} threads (rules R1-R2), releases {}; times in {}\n",
      a.simulate, s.gpu_threads,
      a.seeded ? fmt::format("from random offsets (seed {})", a.seed) : "synchronous", to_string(u));
  Table t({"task", "C", "T", "g", "b", "max R", "mean R", "first R", "last R"},
          {false, true, true, true, true, true, true, true, true});
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    const FifoTask& x = s.tasks[i];
    const FifoTaskSim& r = sim.tasks[i];
    t.add({x.name, format_time(x.wcet, u), format_time(x.period, u), std::to_string(x.grid),
           std::to_string(x.block), format_time(r.worst, u), format_time(r.mean, u),
           format_time(r.response.front(), u), format_time(r.response.back(), u)});
  }
  return out + t.render();
}

void run_fifo(const FifoArgs& a) {
  const FifoSystem system = load_fifo_system(a.file);
  const FifoResult r = analyse_fifo(system);
  if (a.check && (r.at_or_above_limit || r.overloaded)) exit_status() = 1;
  std::optional<FifoSimResult> sim;
  if (a.simulate > 0) {
    // The simulator counts threads in int: a larger pool is bad input for --simulate, not a failure.
    if (system.gpu_threads > std::numeric_limits<std::int32_t>::max()) {
      throw InputError(a.file, "gpu_threads", std::to_string(system.gpu_threads),
                       "is too many to simulate (--simulate needs at most 2147483647)");
    }
    // Every job's response time is kept (8 bytes each): bound the total, not only the per-task count.
    const auto total = static_cast<std::int64_t>(system.tasks.size()) * a.simulate;
    if (total > a.max_jobs) {
      throw InputError(
          "command line", "--simulate", std::to_string(a.simulate),
          fmt::format("simulates {} jobs in all ({} tasks), more than --max-jobs {}; raise --max-jobs", total,
                      system.tasks.size(), a.max_jobs));
    }
    // The simulator places every block (about 32 bytes each for a kernel's grid): bound them too.
    std::int64_t blocks = 0;
    for (const FifoTask& t : system.tasks) blocks += std::int64_t{t.grid} * a.simulate;
    if (blocks > a.max_blocks) {
      throw InputError(
          "command line", "--simulate", std::to_string(a.simulate),
          fmt::format("simulates {} blocks in all (jobs x grid), more than --max-blocks {}; raise "
                      "--max-blocks",
                      blocks, a.max_blocks));
    }
    FifoSimOptions o;
    o.jobs = a.simulate;
    o.random_offsets = a.seeded;
    o.seed = a.seed;
    sim = simulate_fifo(system, o);
  }
  if (a.json) {
    Json out{{"total_utilization", r.total_utilization},
             {"b_max", r.max_block},
             {"gpu_threads", r.gpu_threads},
             {"limit", r.limit},
             {"at_or_above_limit", r.at_or_above_limit},
             {"overloaded", r.overloaded}};
    if (sim) out["simulation"] = fifo_simulation_json(*sim, a, system.time_unit);
    fmt::print("{}\n", out.dump(2));
    return;
  }
  std::string out = fmt::format("FIFO model (FIFO model seed, Theorem 1) of {}\n", a.file);
  out += fmt::format("m = {} GPU threads, b_max = {}, U_sum = {:.4f}, m - b_max + 1 = {}\n", r.gpu_threads,
                     r.max_block, r.total_utilization, format_number(r.limit));
  if (r.overloaded) {
    out += "U_sum > m: the GPU is overloaded; response times grow without bound\n";
  } else if (r.max_block == 1 && r.reaches_limit) {
    out +=
        "U_sum = m with b_max = 1: outside Theorem 1, which needs b_max > 1 (the seed proves no bound "
        "here)\n";
  } else if (r.at_or_above_limit) {
    out += "U_sum >= m - b_max + 1: Theorem 1 shows systems in this region with unbounded response times\n";
  } else {
    out +=
        "U_sum < m - b_max + 1: below Theorem 1's limit (the seed proves no bound here; see docs/rtgpu.md)\n";
  }
  if (sim) out += fifo_simulation_table(system, *sim, a);
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
  rtgpu->add_option("--method", args->method, "rtgpu (default), self-suspension, stgm or gcaps-rr")
      ->check(CLI::IsMember({"rtgpu", "self-suspension", "stgm", "gcaps-rr"}));
  rtgpu->add_option("--search", args->search, "SM allocation search: exact (default), greedy or brute")
      ->check(CLI::IsMember({"brute", "greedy", "exact"}));
  rtgpu
      ->add_option("--max-analyses", args->max_analyses,
                   "Stop a search after this many task analyses (exit 1; default 2000000: STGM's exact "
                   "search is exponential in the tasks)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  rtgpu
      ->add_option("--max-seconds", args->max_seconds,
                   "Stop the analysis after this many seconds (exit 1; default 30; 0 = no limit): its time "
                   "grows about as the fifth power of the tasks and segments")
      ->check(finite_in(0.0, 1e9));
  rtgpu->add_flag("--json", args->json, "Print JSON instead of a table");
  rtgpu->add_flag("--check", args->check, "Exit 1 when the system is not schedulable");
  rtgpu->callback([args] { run_rtgpu(*args); });

  auto* fifo = analyze.add_subcommand("fifo", "FIFO GPU model: U_sum against Theorem 1's m - b_max + 1");
  fifo->footer(
      "File: {\"format\": \"gpurt/fifo@1\", \"time_unit\": \"ms\", \"gpu_threads\": 4096,\n"
      "       \"tasks\": [{\"name\", \"wcet\", \"period\", \"grid\", \"block\"}]}\n"
      "Example:\n  gpurt analyze fifo examples/fifo/example2.json\n"
      "  gpurt analyze fifo examples/fifo/theorem1.json --simulate 50   # Theorem 1: R grows job over job");
  auto fargs = std::make_shared<FifoArgs>();
  fifo->add_option("FILE", fargs->file, "gpurt/fifo@1 task file")->required();
  fifo->add_flag("--json", fargs->json, "Print JSON instead of text");
  fifo->add_flag(
      "--check", fargs->check,
      "Exit 1 when U_sum >= m - b_max + 1 with b_max > 1 (Theorem 1: response times may grow "
      "without bound) or U_sum > m; otherwise the seed proves no bound, so exit 0 is no guarantee");
  auto* simulate =
      fifo->add_option("--simulate", fargs->simulate,
                       "Simulate N jobs per task on the block-level simulator (one pool of m threads)")
          ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  fifo->add_option("--max-jobs", fargs->max_jobs,
                   "Refuse --simulate when the tasks times N pass this (default 10000000; 8 bytes a job)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  fifo->add_option("--max-blocks", fargs->max_blocks,
                   "Refuse --simulate when its blocks (N x grid, summed over the tasks) pass this "
                   "(default 16777216)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  auto* seed =
      fifo->add_option(
              "--seed", fargs->seed,
              "With --simulate: first releases uniform in [0, T_i) from this seed (default: all at 0)")
          ->needs(simulate);
  fifo->callback([fargs, seed] {
    fargs->seeded = seed->count() > 0;
    run_fifo(*fargs);
  });
}

}  // namespace gpurt::cli

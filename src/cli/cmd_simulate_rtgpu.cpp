// gpurt simulate-rtgpu FILE | --generated K: RTGPU systems on the block-level simulator with
// the analysis's federated allocation; observed response times next to the Theorem 5.6 bound.
#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/rtgpu_simcheck.hpp"
#include "gpurt/sim/rtgpu_sim.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct SimRtgpuArgs {
  std::string file, search = "exact", execution = "worst", offsets = "sync", csv, model = "calibrated";
  std::int64_t jobs = 50;
  std::int64_t max_jobs = 100'000;  // --jobs without --max-jobs
  int max_generated = 10'000;       // --generated without --max-generated
  int generated = 0, threads = 0;
  double jitter = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

double ratio(Nanos a, Nanos b) { return static_cast<double>(a.count()) / static_cast<double>(b.count()); }

void run_file(const SimRtgpuArgs& a) {
  RtgpuSystem s = load_rtgpu_system(a.file);
  // --jobs is per task: the run's work is the tasks times that (1,024 tasks x 100,000 jobs would
  // run for hours), so --max-jobs bounds the total too.
  const auto total = static_cast<std::int64_t>(s.tasks.size()) * a.jobs;
  if (total > a.max_jobs) {
    throw InputError(
        "command line", "--jobs", std::to_string(a.jobs),
        fmt::format("releases {} jobs in all ({} tasks), more than --max-jobs {}; raise --max-jobs", total,
                    s.tasks.size(), a.max_jobs));
  }
  apply_model_option(s.platform, a.model);
  const std::string model = model_in_force(s.platform);
  RtgpuOptions ao;
  ao.search = a.search == "brute"    ? RtgpuSearch::brute
              : a.search == "greedy" ? RtgpuSearch::greedy
                                     : RtgpuSearch::exact;
  const RtgpuResult analysis = analyse_rtgpu(s, ao);
  RtgpuSimOptions o;
  int used = 0;
  for (const RtgpuTaskResult& t : analysis.tasks) {
    o.physical_sms.push_back(t.physical_sms);
    used += t.physical_sms;
  }
  if (used > s.platform.sms) {
    throw Error(fmt::format("{}: no allocation to simulate: the search stopped at {} SMs of {}", a.file, used,
                            s.platform.sms));
  }
  o.jobs = a.jobs;
  o.execution = a.execution == "random" ? RtgpuExecution::random : RtgpuExecution::worst;
  o.random_offsets = a.offsets == "random";
  o.sporadic_jitter = a.jitter;
  o.seed = a.seed;
  const RtgpuSimResult r = simulate_rtgpu(s, o);

  const TimeUnit u = s.time_unit;
  // A task simulated above the response bound the analysis claims: the analysis does not cover
  // this run (or the simulator broke the task model). Said, and the exit status is 1.
  std::vector<bool> over(r.tasks.size(), false);
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    const auto& bound = analysis.tasks[i].bounds.response;
    over[i] = bound && r.tasks[i].jobs > 0 && r.tasks[i].worst > *bound;
  }
  if (std::find(over.begin(), over.end(), true) != over.end()) exit_status() = 1;
  if (a.json) {
    Json tasks = Json::array();
    for (std::size_t i = 0; i < r.tasks.size(); ++i) {
      const RtgpuTaskSim& x = r.tasks[i];
      const auto& bound = analysis.tasks[i].bounds.response;
      tasks.push_back(Json{{"name", x.name},
                           {"physical_sms", x.physical_sms},
                           {"first_sm", x.first_sm},
                           {"jobs", x.jobs},
                           {"max_response", from_nanos(x.worst, u)},
                           {"mean_response", from_nanos(x.mean, u)},
                           {"min_response", from_nanos(x.best, u)},
                           {"lower_bound", from_nanos(analysis.tasks[i].bounds.lower, u)},
                           {"response_bound", bound ? Json(from_nanos(*bound, u)) : Json(nullptr)},
                           {"deadline", from_nanos(s.tasks[i].deadline, u)},
                           {"tightness", bound ? Json(ratio(x.worst, *bound)) : Json(nullptr)},
                           {"bound_holds", bound ? Json(!over[i]) : Json(nullptr)},
                           {"deadline_misses", x.deadline_misses}});
    }
    fmt::print("{}\n", Json{{"simulated", true},
                            {"model", model},
                            {"schedulable", analysis.schedulable},
                            {"execution", a.execution},
                            {"offsets", a.offsets},
                            {"jitter", a.jitter},
                            {"seed", a.seed},
                            {"late_kernels", r.late_kernels},
                            {"late_copies", r.late_copies},
                            {"tasks", std::move(tasks)}}
                           .dump(2));
    return;
  }
  std::string out =
      fmt::format("RTGPU system {} on the simulator (simulated; {} jobs per task)\n", a.file, a.jobs);
  out += fmt::format(
      "platform {}: {} SMs x {} virtual, {} model; execution {}, releases {}{}, seed {}; analysis: {}; times "
      "in {}\n\n",
      s.platform.id, s.platform.sms, s.virtual_sms_per_sm, model, a.execution,
      a.offsets == "random" ? "random offsets" : "synchronous",
      a.jitter > 0 ? fmt::format(" + sporadic jitter {}", a.jitter) : "", a.seed,
      analysis.schedulable ? "schedulable" : "NOT schedulable", to_string(u));
  Table t({"task", "prio", "SMs", "jobs", "min R", "mean R", "max R", "lower", "bound", "max/bound",
           "deadline", "misses"},
          {false, true, false, true, true, true, true, true, true, true, true, true});
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    const RtgpuTaskSim& x = r.tasks[i];
    const auto& bound = analysis.tasks[i].bounds.response;
    t.add({x.name, std::to_string(s.tasks[i].priority),
           x.physical_sms == 0   ? std::string("-")  // no GPU segment, no SM
           : x.physical_sms == 1 ? std::to_string(x.first_sm)
                                 : fmt::format("{}-{}", x.first_sm, x.first_sm + x.physical_sms - 1),
           std::to_string(x.jobs), format_time(x.best, u), format_time(x.mean, u), format_time(x.worst, u),
           format_time(analysis.tasks[i].bounds.lower, u), bound ? format_time(*bound, u) : "> D",
           bound ? fmt::format("{:.4f}{}", ratio(x.worst, *bound), over[i] ? " !" : "") : "-",
           format_time(s.tasks[i].deadline, u), std::to_string(x.deadline_misses)});
  }
  out += t.render();
  if (r.late_kernels + r.late_copies > 0) {
    out += fmt::format("\nWARNING: {} kernels and {} copies did not run as planned\n", r.late_kernels,
                       r.late_copies);
  }
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    if (!over[i]) continue;
    out += fmt::format(
        "ERROR: {} was simulated at {} {}, above its response bound {} (!): the analysis does not "
        "cover this run\n",
        r.tasks[i].name, format_time(r.tasks[i].worst, u), to_string(u),
        format_time(*analysis.tasks[i].bounds.response, u));
  }
  fmt::print("{}", out);
}

void run_generated(const SimRtgpuArgs& a) {
  if (!a.csv.empty()) check_output_file(a.csv, "--csv");
  RtgpuSimCheckOptions o;
  o.sets = a.generated;
  o.seed = a.seed;
  o.jobs = a.jobs;
  o.threads = a.threads;
  const RtgpuSimCheckResult r = run_rtgpu_simcheck(o);
  if (!a.csv.empty()) write_file_atomically(a.csv, to_csv(r));
  const auto [lo, median, hi] = tightness_summary(r);
  // No schedulable set, no task checked: no ratio to summarise (not zeros, which read as bounds
  // infinitely loose).
  const bool none = r.tasks.empty();
  if (a.json) {
    Json violations = Json::array();
    for (const RtgpuSimCheckViolation& v : r.violations) {
      violations.push_back(Json{{"set", v.set},
                                {"task", v.task},
                                {"run", v.run},
                                {"observed_ms", from_nanos(v.observed, TimeUnit::ms)},
                                {"bound_ms", from_nanos(v.bound, TimeUnit::ms)},
                                {"system", parse_json(v.system, "system")}});
    }
    fmt::print("{}\n",
               Json{{"simulated", true},
                    {"generated", r.generated},
                    {"schedulable", r.schedulable},
                    {"tasks", r.tasks.size()},
                    {"tightness", none ? Json(nullptr) : Json{{"min", lo}, {"median", median}, {"max", hi}}},
                    {"late_kernels", r.late_kernels},
                    {"late_copies", r.late_copies},
                    {"violations", std::move(violations)}}
                   .dump(2));
  } else {
    std::string out = fmt::format(
        "simulated check: {} generated RTGPU systems (seed {}), {} schedulable, {} tasks, {} jobs per task "
        "per run\n"
        "runs per system: worst-sync, worst-offsets, random-sporadic\n"
        "observed max / bound: {}\n"
        "violations (observed > bound or < lower bound): {}\n",
        r.generated, a.seed, r.schedulable, r.tasks.size(), a.jobs,
        none ? std::string("none (no schedulable set, so no task to check)")
             : fmt::format("min {:.4f}, median {:.4f}, max {:.4f}", lo, median, hi),
        r.violations.size());
    for (const RtgpuSimCheckViolation& v : r.violations) {
      out +=
          fmt::format("  set {} task {} run {}: observed {} ms, bound {} ms\n    {}\n", v.set, v.task, v.run,
                      format_time(v.observed, TimeUnit::ms), format_time(v.bound, TimeUnit::ms), v.system);
    }
    fmt::print("{}", out);
  }
  if (!r.violations.empty() || r.late_kernels + r.late_copies > 0) exit_status() = 1;
}

}  // namespace

void add_simulate_rtgpu(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "simulate-rtgpu",
      "Run an RTGPU system on the simulator (federated SMs, FP CPU and bus) next to its Theorem 5.6 bounds");
  cmd->footer(
      "Each task's kernels run on its federated SMs (the analysis's allocation, --search), CPU segments\n"
      "on one preemptive fixed-priority CPU, copies on one non-preemptive fixed-priority bus.\n"
      "--generated K instead checks K generated systems (3 runs each) and exits 1 on any violation.\n"
      "Examples:\n"
      "  gpurt simulate-rtgpu examples/rtgpu/sim-two-tasks.json --jobs 4\n"
      "  gpurt simulate-rtgpu FILE --execution random --offsets random --jitter 0.3 --seed 3\n"
      "  gpurt simulate-rtgpu --generated 400 --seed 1 --jobs 20 --csv tightness.csv");
  auto args = std::make_shared<SimRtgpuArgs>();
  auto* file = cmd->add_option("FILE", args->file, "gpurt/rtgpu@1 task file");
  auto* generated = cmd->add_option("--generated", args->generated,
                                    "Check K generated systems (RTGPU Table 1, varied) instead of a file")
                        ->check(CLI::Range(1, 1'000'000))
                        ->excludes(file);
  cmd->add_option("--jobs", args->jobs, "Jobs released per task (default 50; --generated: per run, 20)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--search", args->search, "Allocation search: exact (default), greedy or brute")
      ->check(CLI::IsMember({"brute", "greedy", "exact"}))
      ->excludes(generated);
  cmd->add_option("--execution", args->execution,
                  "worst (upper bounds, default) or random (uniform in [lo, hi])")
      ->check(CLI::IsMember({"worst", "random"}))
      ->excludes(generated);
  cmd->add_option("--offsets", args->offsets,
                  "sync (all released at 0, default) or random (uniform in [0, T))")
      ->check(CLI::IsMember({"sync", "random"}))
      ->excludes(generated);
  cmd->add_option("--jitter", args->jitter, "Sporadic releases: gaps T(1 + U(0, X)) (default 0: periodic)")
      ->check(finite_in(0.0, 100.0))
      ->excludes(generated);
  cmd->add_option("--seed", args->seed, "Seed for offsets, jitter, random lengths and generated systems")
      ->check(seed_value());
  cmd->add_option("--threads", args->threads, "--generated: worker threads (0: all)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--csv", args->csv, "--generated: write one row per task to this CSV")->needs(generated);
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  add_model_option(cmd, args->model)->excludes(generated);
  auto* jobs = cmd->get_option("--jobs");
  cmd->add_option("--max-jobs", args->max_jobs,
                  "Refuse --jobs above this, or a FILE's tasks times --jobs above it (default 100000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--max-generated", args->max_generated, "Refuse --generated above this (default 10000)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->callback([args, file, generated, jobs] {
    if (args->jobs > args->max_jobs) {
      throw InputError("command line", "--jobs", std::to_string(args->jobs),
                       fmt::format("is more than --max-jobs {}; raise --max-jobs", args->max_jobs));
    }
    if (args->generated > args->max_generated) {
      throw InputError(
          "command line", "--generated", std::to_string(args->generated),
          fmt::format("is more than --max-generated {}; raise --max-generated", args->max_generated));
    }
    if (generated->count() > 0) {
      if (jobs->count() == 0) args->jobs = 20;
      run_generated(*args);
    } else if (file->count() > 0) {
      run_file(*args);
    } else {
      throw InputError("simulate-rtgpu", "give a FILE or --generated K");
    }
  });
}

}  // namespace gpurt::cli

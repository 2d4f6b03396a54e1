// gpurt simulate-table FILE: analyse a gpurt/pbs@1 file, then play its schedule table in the
// GPU simulator with one of the PBS seed's §4.1 dispatcher strategies.
// gpurt dispatch-table FILE: the same table through the runtime dispatcher, on a GPU or as a
// dry run on the host clock (runtime/pbs_dispatch.hpp).
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/runtime/pbs_dispatch.hpp"
#include "gpurt/sim/pbs_play.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct PlayArgs {
  std::string file;
  std::string policy = "gpusched";
  std::string strategy = "time-triggered";
  std::string model = "calibrated";
  double fraction = 1.0;
  bool json = false;
  bool check = false;
  std::uint64_t max_vertices = 1'000'000;  // as `analyze pbs`
  std::int64_t max_jobs = 1'000'000;       // as `analyze pbs`
  double max_seconds = 30;                 // as `analyze pbs` (0 = no limit)
  std::int64_t max_frames = 2'000;
  // dispatch-table
  std::string backend = "host";
  int device = 0;
  std::int64_t hyperperiods = 1;
};

// The policy's table for the file, under the search budgets; the strategy checked on the way.
// Throws InputError for bad options, Error (exit 1) when a limit stopped the search.
PbsResult table_for(const PlayArgs& a, const PbsSystem& system) {
  const auto policy = parse_pbs_policy(a.policy);
  if (!policy) {
    throw InputError("command line", "--policy", a.policy,
                     "must be gpusched, edf-serial, edf-parallel or gpusched-reference");
  }
  if (a.strategy != "time-triggered" && a.strategy != "when-done") {
    throw InputError("command line", "--strategy", a.strategy, "must be time-triggered or when-done");
  }
  PbsResult analysis;
  try {
    analysis = analyse_pbs(system, {.policy = *policy,
                                    .max_vertices = a.max_vertices,
                                    .max_seconds = a.max_seconds,
                                    .max_jobs = a.max_jobs});
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {  // a limit of the search: say which file reached it
    throw Error(fmt::format("{}: {}", a.file, e.what()));
  }
  if (!analysis.complete) {
    const bool by_time = analysis.stopped_by == "max-seconds";
    const std::string option = by_time ? "--max-seconds" : "--max-vertices";
    throw Error(fmt::format(
        "{}: GPUSched stopped at {} {} without a table; raise {} for a longer search", a.file, option,
        by_time ? fmt::format("{}", a.max_seconds) : std::to_string(a.max_vertices), option));
  }
  return analysis;
}

void run_play(const PlayArgs& a) {
  if (!(a.fraction > 0 && a.fraction <= 1)) {
    throw InputError("command line", "--fraction", fmt::format("{}", a.fraction), "must be in (0, 1]");
  }
  PbsSystem system = load_pbs_system(a.file);
  apply_model_option(system.platform, a.model);
  const std::string model = model_in_force(system.platform);
  const PbsResult analysis = table_for(a, system);
  // Playing costs a simulation of the table (when-done: one per frame, each replaying those
  // before it, so the time grows with the square of the frames: 2,000 take about 9 s here).
  if (static_cast<std::int64_t>(analysis.table.size()) > a.max_frames) {
    throw Error(fmt::format("{}: the table has {} frames, more than --max-frames ({}) plays; raise it",
                            a.file, analysis.table.size(), a.max_frames));
  }
  const PbsPlayResult play = play_pbs_table(
      system, analysis.table,
      {.strategy = a.strategy == "when-done" ? PbsPlayStrategy::when_done : PbsPlayStrategy::time_triggered,
       .execution_fraction = a.fraction});
  const TimeUnit u = system.time_unit;
  if (a.json) {
    Json frames = Json::array();
    for (const PbsPlayedFrame& f : play.frames) {
      frames.push_back(Json{{"start", from_nanos(f.start, u)},
                            {"end", from_nanos(f.end, u)},
                            {"model_end", from_nanos(f.model_end, u)},
                            {"started_at_once", f.started_at_once}});
    }
    fmt::print("{}\n", Json{{"schedulable", analysis.schedulable},
                            {"policy", std::string(to_string(analysis.policy))},
                            {"strategy", a.strategy},
                            {"model", model},
                            {"deadlines_met", play.deadlines_met},
                            {"matches_model", play.matches_model},
                            {"problem", play.first_problem},
                            {"frames", std::move(frames)}}
                           .dump(2));
  } else {
    fmt::print(
        "{} table of {} played in the simulator ({}, execution fraction {}, {} model); times in {}\n\n",
        to_string(analysis.policy), a.file, a.strategy, a.fraction, model, to_string(u));
    Table t({"frame", "start", "end", "model end", "all blocks at start"}, {true, true, true, true, false});
    for (std::size_t i = 0; i < play.frames.size(); ++i) {
      const PbsPlayedFrame& f = play.frames[i];
      t.add({std::to_string(i), format_time(f.start, u), format_time(f.end, u), format_time(f.model_end, u),
             f.started_at_once ? "yes" : "NO"});
    }
    if (analysis.table.empty()) {
      fmt::print("schedulable: NO: {} found no table, so nothing was played\n", to_string(analysis.policy));
    } else {
      fmt::print("{}\nschedulable ({}): {}; deadlines met: {}; matches the model: {}\n", t.render(),
                 to_string(analysis.policy), analysis.schedulable ? "yes" : "NO",
                 play.deadlines_met ? "yes" : "NO", play.matches_model ? "yes" : "NO");
    }
    if (!play.first_problem.empty()) fmt::print("first problem: {}\n", play.first_problem);
  }
  if (a.check && !(play.deadlines_met && play.matches_model && analysis.schedulable)) exit_status() = 1;
}

double median_lateness_ns(const PbsDispatchResult& r) {
  std::vector<std::int64_t> l;
  for (const PbsDispatchedFrame& f : r.frames) l.push_back(f.lateness().count());
  if (l.empty()) return 0;
  std::nth_element(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(l.size() / 2), l.end());
  return static_cast<double>(l[l.size() / 2]);
}

void run_dispatch(const PlayArgs& a) {
  if (a.backend != "host" && a.backend != "gpu")
    throw InputError("command line", "--backend", a.backend, "must be host or gpu");
  const PbsSystem system = load_pbs_system(a.file);
  const PbsResult analysis = table_for(a, system);
  // A policy's table that misses a deadline (a baseline's stops at its first miss) is no
  // schedule to dispatch: it would run as if complete, or fail the table checks as bad input.
  if (!analysis.schedulable) {
    std::string miss;
    if (analysis.first_miss)
      miss = fmt::format(" (first miss: {}#{})",
                         system.tasks[static_cast<std::size_t>(analysis.first_miss->task)].name,
                         analysis.first_miss->job);
    throw Error(fmt::format("{}: {} finds no schedule{}: nothing to dispatch", a.file,
                            to_string(analysis.policy), miss));
  }
  std::unique_ptr<PbsLauncher> launcher;
  if (a.backend == "gpu") {
    const ProbeResult probe = probe_gpus();
    if (probe.devices.empty()) {
      throw InputError("command line", "--backend", "gpu",
                       fmt::format("no GPU to run on ({}); --backend host is a dry run on the host clock",
                                   probe.reason.empty() ? "no device visible" : probe.reason));
    }
    launcher = make_pbs_gpu_launcher(system, a.device);
  } else {
    launcher = std::make_unique<PbsHostLauncher>(system);
  }
  const PbsDispatchResult r =
      dispatch_pbs_table(system, analysis.table, *launcher,
                         {.strategy = a.strategy == "when-done" ? PbsDispatchStrategy::when_done
                                                                : PbsDispatchStrategy::time_triggered,
                          .hyperperiods = a.hyperperiods});
  const TimeUnit u = system.time_unit;
  const std::string what = a.backend == "gpu"
                               ? fmt::format("measured on GPU {}", a.device)
                               : std::string("host dry run: no GPU, each job takes its modelled time");
  if (a.json) {
    // Record by record: a whole JSON tree of 10^6 records took about 45 times their memory.
    const Json head{{"policy", std::string(to_string(analysis.policy))},
                    {"strategy", a.strategy},
                    {"backend", a.backend},
                    {"simulated", false},
                    {"what", what},
                    {"time_unit", std::string(to_string(u))},
                    {"hyperperiods", a.hyperperiods},
                    {"deadline_misses", r.deadline_misses},
                    {"overruns", r.overruns},
                    {"max_lateness", from_nanos(r.max_lateness, u)}};
    std::string text = head.dump(2);
    text.erase(text.rfind('}'));  // the object stays open for the two lists
    fmt::print("{},\n  \"frames\": [", text.substr(0, text.find_last_not_of(" \n") + 1));
    for (std::size_t i = 0; i < r.frames.size(); ++i) {
      const PbsDispatchedFrame& f = r.frames[i];
      fmt::print("{}\n    {}", i ? "," : "",
                 Json{{"table_index", f.table_index},
                      {"hyperperiod", f.hyperperiod},
                      {"planned", from_nanos(f.planned, u)},
                      {"release", from_nanos(f.release, u)},
                      {"launch", from_nanos(f.launch, u)},
                      {"end", from_nanos(f.end, u)},
                      {"lateness", from_nanos(f.lateness(), u)},
                      {"overran", f.overran}}
                     .dump());
    }
    fmt::print("\n  ],\n  \"jobs\": [");
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
      const PbsDispatchedJob& j = r.jobs[i];
      fmt::print("{}\n    {}", i ? "," : "",
                 Json{{"task", system.tasks[static_cast<std::size_t>(j.job.task)].name},
                      {"job", j.job.job},
                      {"hyperperiod", j.hyperperiod},
                      {"frame", j.frame},
                      {"arrival", from_nanos(j.arrival, u)},
                      {"deadline", from_nanos(j.deadline, u)},
                      {"launch", from_nanos(j.launch, u)},
                      {"end", from_nanos(j.end, u)},
                      {"response", from_nanos(j.response(), u)},
                      {"missed", j.missed()}}
                     .dump());
    }
    fmt::print("\n  ]\n}}\n");
  } else {
    fmt::print("{} table of {} dispatched ({}), {}, {} hyperperiod(s); times in {} from the run's start\n\n",
               to_string(analysis.policy), a.file, what, a.strategy, a.hyperperiods, to_string(u));
    constexpr std::size_t kRows = 40;
    Table t({"frame", "hyperperiod", "planned", "release", "launch", "end", "lateness", "overran"},
            {true, true, true, true, true, true, true, false});
    for (std::size_t i = 0; i < r.frames.size() && i < kRows; ++i) {
      const PbsDispatchedFrame& f = r.frames[i];
      t.add({std::to_string(f.table_index), std::to_string(f.hyperperiod), format_time(f.planned, u),
             format_time(f.release, u), format_time(f.launch, u), format_time(f.end, u),
             format_time(f.lateness(), u), f.overran ? "YES" : "no"});
    }
    fmt::print("{}", t.render());
    if (r.frames.size() > kRows)
      fmt::print("... {} more frames (--json lists every one)\n", r.frames.size() - kRows);
    fmt::print("\nframes: {}, overruns: {}; jobs: {}, deadline misses: {}; lateness median {}, max {}\n",
               r.frames.size(), r.overruns, r.jobs.size(), r.deadline_misses,
               format_time(Nanos{static_cast<std::int64_t>(median_lateness_ns(r))}, u),
               format_time(r.max_lateness, u));
  }
  if (a.check && (r.deadline_misses > 0 || r.overruns > 0)) exit_status() = 1;
}

// The options both table commands share: the file, whose table, the strategy, the search budgets.
void add_table_options(CLI::App* cmd, PlayArgs& args) {
  cmd->add_option("FILE", args.file, "gpurt/pbs@1 task file")->required();
  cmd->add_option("--policy", args.policy,
                  "Whose table: gpusched (default), edf-serial, edf-parallel, gpusched-reference (the seed's "
                  "search as printed)");
  cmd->add_option("--strategy", args.strategy, "time-triggered (default) or when-done");
  cmd->add_option("--max-vertices", args.max_vertices,
                  "GPUSched: stop after creating this many vertices, with exit 1 (default 1000000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  cmd->add_option("--max-seconds", args.max_seconds,
                  "GPUSched: stop after this many seconds, with exit 1 (default 30; 0 = no limit)")
      ->check(finite_in(0.0, 1e9));
  cmd->add_option("--max-jobs", args.max_jobs,
                  "EDF baselines: refuse a hyperperiod of more jobs, exit 1 (default 1000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
}

}  // namespace

void add_simulate_table(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("simulate-table", "Play a PBS schedule table in the GPU simulator (PBS seed §4.1)");
  cmd->footer(
      "Example:\n  gpurt simulate-table examples/pbs/figure1.json --strategy when-done --fraction 0.8");
  auto args = std::make_shared<PlayArgs>();
  add_table_options(cmd, *args);
  cmd->add_option("--fraction", args->fraction, "Blocks run this fraction of their modelled time (default 1)")
      ->check(finite_positive(1.0));
  cmd->add_option("--max-frames", args->max_frames,
                  "Refuse to play a table of more frames, exit 1 (default 2000; when-done costs grow with "
                  "the square)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000}));
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  add_model_option(cmd, args->model);
  cmd->add_flag("--check", args->check,
                "Exit 1 unless schedulable, no deadline missed and the model matched");
  cmd->callback([args] { run_play(*args); });
}

void add_dispatch_table(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "dispatch-table",
      "Dispatch a PBS schedule table with the runtime dispatcher (PBS seed §4.1): GPU or host");
  cmd->footer(
      "--backend host is a dry run on the host clock (no GPU; each job takes its modelled time): it\n"
      "measures the dispatcher's own timer lateness. --backend gpu launches each job as a kernel of\n"
      "its task's grid spinning for C on the task's stream.\n"
      "Example:\n  gpurt dispatch-table examples/pbs/figure1.json --hyperperiods 5 --strategy when-done");
  auto args = std::make_shared<PlayArgs>();
  add_table_options(cmd, *args);
  cmd->add_option("--backend", args->backend, "host (default; a dry run, no GPU) or gpu");
  cmd->add_option("--device", args->device, "CUDA device for --backend gpu (default 0)")
      ->check(CLI::Range(0, 1023));
  cmd->add_option("--hyperperiods", args->hyperperiods,
                  "Play the table this many times back to back (default 1)")
      ->check(CLI::Range(std::int64_t{1}, kPbsDispatchMaxHyperperiods));
  cmd->add_flag("--json", args->json, "Print JSON (every frame and job) instead of a table");
  cmd->add_flag("--check", args->check, "Exit 1 if a deadline was missed or a frame overran");
  cmd->callback([args] { run_dispatch(*args); });
}

}  // namespace gpurt::cli

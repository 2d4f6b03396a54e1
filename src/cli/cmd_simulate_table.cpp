// gpurt simulate-table FILE: analyse a gpurt/pbs@1 file, then play its schedule table in the
// GPU simulator with one of the PBS seed's §4.1 dispatcher strategies.
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
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
};

void run_play(const PlayArgs& a) {
  const auto policy = parse_pbs_policy(a.policy);
  if (!policy) {
    throw InputError("command line", "--policy", a.policy,
                     "must be gpusched, edf-serial, edf-parallel or gpusched-reference");
  }
  if (a.strategy != "time-triggered" && a.strategy != "when-done") {
    throw InputError("command line", "--strategy", a.strategy, "must be time-triggered or when-done");
  }
  if (!(a.fraction > 0 && a.fraction <= 1)) {
    throw InputError("command line", "--fraction", fmt::format("{}", a.fraction), "must be in (0, 1]");
  }
  PbsSystem system = load_pbs_system(a.file);
  apply_model_option(system.platform, a.model);
  const std::string model = model_in_force(system.platform);
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

}  // namespace

void add_simulate_table(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("simulate-table", "Play a PBS schedule table in the GPU simulator (PBS seed §4.1)");
  cmd->footer(
      "Example:\n  gpurt simulate-table examples/pbs/figure1.json --strategy when-done --fraction 0.8");
  auto args = std::make_shared<PlayArgs>();
  cmd->add_option("FILE", args->file, "gpurt/pbs@1 task file")->required();
  cmd->add_option("--policy", args->policy, "Whose table: gpusched (default), edf-serial, edf-parallel");
  cmd->add_option("--strategy", args->strategy, "time-triggered (default) or when-done");
  cmd->add_option("--fraction", args->fraction, "Blocks run this fraction of their modelled time (default 1)")
      ->check(finite_positive(1.0));
  cmd->add_option("--max-vertices", args->max_vertices,
                  "GPUSched: stop after creating this many vertices, with exit 1 (default 1000000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  cmd->add_option("--max-seconds", args->max_seconds,
                  "GPUSched: stop after this many seconds, with exit 1 (default 30; 0 = no limit)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--max-frames", args->max_frames,
                  "Refuse to play a table of more frames, exit 1 (default 2000; when-done costs grow with "
                  "the square)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000}));
  cmd->add_option("--max-jobs", args->max_jobs,
                  "EDF baselines: refuse a hyperperiod of more jobs, exit 1 (default 1000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  add_model_option(cmd, args->model);
  cmd->add_flag("--check", args->check,
                "Exit 1 unless schedulable, no deadline missed and the model matched");
  cmd->callback([args] { run_play(*args); });
}

}  // namespace gpurt::cli

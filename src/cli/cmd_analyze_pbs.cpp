// gpurt analyze pbs FILE: GPUSched and the EDF baselines of the PBS seed on a gpurt/pbs@1 file.
#include <fmt/format.h>

#include <cstdio>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/error.hpp"
#include "table.hpp"

namespace gpurt::cli {

/// The GPUSched vertex cap of `analyze pbs` and `simulate-table` unless --max-vertices raises it:
/// about 0.5 GB and a few minutes at most (equal-period task sets can need far more).
constexpr std::uint64_t kCliMaxVertices = 1'000'000;
/// The GPUSched time budget of `analyze pbs` unless --max-seconds changes it (0 = none): a
/// 32-task set of equal periods creates about 10^4 vertices a second (issue 17), so the vertex
/// cap alone would let it run for minutes.
constexpr double kCliMaxSeconds = 30;

namespace {

struct PbsArgs {
  std::string file;
  std::string policy = "gpusched";
  bool json = false;
  bool check = false;
  bool explore_all = false;
  bool whole_graph = false;
  bool no_merge = false;
  std::int64_t max_jobs = 1'000'000;
  std::uint64_t max_vertices = kCliMaxVertices;
  double max_seconds = kCliMaxSeconds;
};

std::string job_name(const PbsSystem& s, const PbsJobRef& j) {
  return fmt::format("{}#{}", s.tasks[static_cast<std::size_t>(j.task)].name, j.job);
}

Json stats_json(const PbsStats& st) {
  return Json{{"vertices_created", st.vertices_created},
              {"vertices_merged", st.vertices_merged},
              {"vertices_split", st.vertices_split},
              {"vertices_pruned", st.vertices_pruned},
              {"vertices_bounded", st.vertices_bounded},
              {"fast_forwards", st.fast_forwards},
              {"edges", st.edges},
              {"schedulable_end_vertices", st.schedulable_end_vertices},
              {"oracle_queries", st.oracle_queries},
              {"oracle_simulations", st.oracle_simulations},
              {"peak_memory_bytes", st.peak_memory_bytes},
              {"seconds", st.seconds}};
}

Json pbs_json(const PbsSystem& s, const PbsResult& r) {
  const TimeUnit u = s.time_unit;
  Json table = Json::array();
  for (const PbsFrame& f : r.table) {
    Json jobs = Json::array();
    for (const PbsJobRef& j : f.jobs) {
      jobs.push_back(Json{{"task", s.tasks[static_cast<std::size_t>(j.task)].name}, {"job", j.job}});
    }
    table.push_back(
        Json{{"start", from_nanos(f.start, u)}, {"end", from_nanos(f.end, u)}, {"jobs", std::move(jobs)}});
  }
  Json out{{"schedulable", r.schedulable}, {"policy", std::string(to_string(r.policy))}};
  out["complete"] = r.complete;
  if (!r.complete) out["stopped_by"] = r.stopped_by;
  out["hyperperiod"] = from_nanos(r.hyperperiod, u);
  out["table"] = std::move(table);
  if (r.first_miss) {
    out["first_miss"] = Json{{"task", s.tasks[static_cast<std::size_t>(r.first_miss->task)].name},
                             {"job", r.first_miss->job}};
  }
  out["stats"] = stats_json(r.stats);
  return out;
}

std::string pbs_text(const PbsSystem& s, const PbsResult& r, const std::string& file) {
  const TimeUnit u = s.time_unit;
  std::string out = fmt::format("PBS analysis ({}) of {}\n", to_string(r.policy), file);
  out += fmt::format("platform {}: {} tasks, hyperperiod {} {}; times in {}\n\n", s.platform.id,
                     s.tasks.size(), format_time(r.hyperperiod, u), to_string(u), to_string(u));
  Table t({"frame", "start", "end", "batch (submission order)"}, {true, true, true, false});
  for (std::size_t i = 0; i < r.table.size(); ++i) {
    std::string batch;
    for (const PbsJobRef& j : r.table[i].jobs) batch += (batch.empty() ? "" : ", ") + job_name(s, j);
    t.add({std::to_string(i), format_time(r.table[i].start, u), format_time(r.table[i].end, u), batch});
  }
  if (!r.table.empty()) out += t.render() + "\n";
  out += fmt::format(
      "schedulable: {}{}\n", r.schedulable ? "yes" : "NO",
      r.complete ? ""
      : r.schedulable
          ? fmt::format(" (search stopped at --{}: table not proven the earliest-ending one)", r.stopped_by)
          : fmt::format(" (search stopped at --{}: not proven)", r.stopped_by));
  if (r.first_miss) out += fmt::format("first deadline miss: {}\n", job_name(s, *r.first_miss));
  const PbsStats& st = r.stats;
  out += fmt::format(
      "vertices: {} created, {} merged, {} split, {} pruned, {} bounded; {} fast-forwards; {} edges\n"
      "oracle: {} queries, {} simulations; peak memory ~{} KiB; {:.3f} ms\n",
      st.vertices_created, st.vertices_merged, st.vertices_split, st.vertices_pruned, st.vertices_bounded,
      st.fast_forwards, st.edges, st.oracle_queries, st.oracle_simulations, st.peak_memory_bytes / 1024,
      st.seconds * 1e3);
  return out;
}

void run_pbs(const PbsArgs& a) {
  const auto policy = parse_pbs_policy(a.policy);
  if (!policy) {
    throw InputError("command line", "--policy", a.policy,
                     "must be gpusched, edf-serial, edf-parallel or gpusched-reference");
  }
  const PbsSystem system = load_pbs_system(a.file);
  PbsResult result;
  try {
    result = analyse_pbs(system, PbsOptions{.policy = *policy,
                                            .explore_all = a.explore_all || a.whole_graph,
                                            .whole_graph = a.whole_graph,
                                            .max_vertices = a.max_vertices,
                                            .max_seconds = a.max_seconds,
                                            .merge = a.no_merge ? PbsMerge::none : PbsMerge::dominated,
                                            .max_jobs = a.max_jobs});
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {  // a limit of the search: say which file reached it
    throw Error(fmt::format("{}: {}", a.file, e.what()));
  }
  // Everything is computed before anything is printed: bad input never yields partial output.
  if (a.json) {
    fmt::print("{}\n", pbs_json(system, result).dump(2));
  } else {
    fmt::print("{}", pbs_text(system, result, a.file));
  }
  if (!result.complete) {
    std::fflush(stdout);
    const bool by_time = result.stopped_by == "max-seconds";
    const bool by_memory = !by_time && result.stats.vertices_created <= a.max_vertices;
    fmt::print(stderr, "gpurt: error: GPUSched stopped at --{} {}{} {}; raise --{} for a longer search\n",
               result.stopped_by, by_time ? fmt::format("{}", a.max_seconds) : std::to_string(a.max_vertices),
               by_memory ? " (the memory it allows, about 256 bytes a vertex, ran out first)" : "",
               (a.explore_all || a.whole_graph) && result.schedulable
                   ? "before the search ended (the table is not proven the earliest-ending one)"
                   : "without an answer (not proven)",
               result.stopped_by);
    exit_status() = 1;
  }
  if (a.check && !result.schedulable) exit_status() = 1;
}

}  // namespace

void add_analyze_pbs(CLI::App& analyze) {
  auto* pbs = analyze.add_subcommand(
      "pbs", "Parallel Batch Scheduler: GPUSched schedule-graph search or EDF baselines (PBS seed)");
  pbs->footer(
      "File: {\"format\": \"gpurt/pbs@1\", \"time_unit\": \"us\", \"platform\": \"h100\",\n"
      "       \"tasks\": [{\"name\", \"period\", \"deadline\"?, \"wcet\", \"blocks\", \"threads\",\n"
      "                  \"registers\"?, \"shared_memory\"?, \"slowdown\"?}],\n"
      "       \"batches\"?: [{\"tasks\": [\"a\", \"b\"], \"completion\": 4}]}\n"
      "Example:\n  gpurt analyze pbs examples/pbs/figure1.json --policy edf-serial");
  auto args = std::make_shared<PbsArgs>();
  pbs->add_option("FILE", args->file, "gpurt/pbs@1 task file")->required();
  pbs->add_option("--policy", args->policy,
                  "gpusched (default), edf-serial, edf-parallel, gpusched-reference");
  pbs->add_flag("--json", args->json, "Print JSON instead of a table");
  pbs->add_flag("--check", args->check, "Exit 1 when the system is not schedulable");
  pbs->add_flag("--explore-all", args->explore_all,
                "GPUSched: search on past the first schedule for the table that ends earliest (branch and "
                "bound: frames that cannot end the table earlier are not explored)");
  pbs->add_flag("--whole-graph", args->whole_graph,
                "GPUSched: explore the whole schedule graph (no bound), count every schedulable end vertex, "
                "keep the earliest-ending table (the seed's Figure 5 work)");
  pbs->add_option("--max-vertices", args->max_vertices,
                  "GPUSched: stop after creating this many vertices, then exit 1 (default 1000000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  pbs->add_option("--max-seconds", args->max_seconds,
                  "GPUSched: stop after this many seconds, then exit 1 (default 30; 0 = no limit)")
      ->check(finite_in(0.0, 1e9));
  pbs->add_option(
         "--max-jobs", args->max_jobs,
         "EDF baselines: refuse a hyperperiod of more jobs, exit 1 (default 1000000; about 0.5 KiB a job). "
         "Every policy also refuses a task with more than 1000000 jobs in the hyperperiod")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  pbs->add_flag("--no-merge", args->no_merge,
                "GPUSched: merge no vertex at all (every eligible order its own vertex: the tree of the "
                "seed's Figure 5c 'without merging'; exponential)");
  pbs->callback([args] { run_pbs(*args); });
}

}  // namespace gpurt::cli

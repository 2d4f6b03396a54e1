// gpurt analyze <model> FILE: one sub-subcommand per analysis.
#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct SmlpArgs {
  std::string file;
  bool json = false;
  bool check = false;
  std::optional<double> rho;
};

Json smlp_json(const SmlpResult& r, TimeUnit unit) {
  Json tasks = Json::array();
  for (const SmlpTaskResult& t : r.tasks) {
    tasks.push_back(Json{{"name", t.name},
                         {"allowed_units", t.allowed_units},
                         {"l_max", from_nanos(t.l_max, unit)},
                         {"a_max", from_nanos(t.a_max, unit)},
                         {"blocking_bound", from_nanos_up(t.blocking_bound, unit)},
                         {"response_bound", from_nanos_up(t.response_bound, unit)},
                         {"job_bound", from_nanos_up(t.job_bound, unit)},
                         {"period", t.period ? Json(from_nanos(*t.period, unit)) : Json(nullptr)},
                         {"deadline", t.deadline ? Json(from_nanos(*t.deadline, unit)) : Json(nullptr)},
                         {"schedulable", t.schedulable}});
  }
  return Json{{"units", r.units}, {"schedulable", r.schedulable}, {"tasks", std::move(tasks)}};
}

std::string smlp_table(const SmlpSystem& s, const SmlpResult& r, const std::string& file) {
  const TimeUnit u = s.time_unit;
  const std::string unit(to_string(u));
  std::string out = fmt::format("SMLP analysis (FIFO, FFT/SMLP Lemmas 1-2) of {}\n", file);
  out += fmt::format("platform {}: H = {} units of {} SM(s); times in {}; A in unit*{}\n\n", s.platform.id,
                     r.units, s.platform.partition_unit, unit, unit);
  // A job column only where CPU segments make a job longer than its kernel's response.
  const bool jobs = std::any_of(r.tasks.begin(), r.tasks.end(),
                                [](const SmlpTaskResult& x) { return x.job_bound != x.response_bound; });
  std::vector<std::string> head{"task", "S_i", "L_max", "A_max", "blocking", "response"};
  if (jobs) head.emplace_back("job");
  head.insert(head.end(), {"deadline", "ok"});
  std::vector<bool> right{false, false, true, true, true, true};
  if (jobs) right.push_back(true);
  right.insert(right.end(), {true, false});
  Table t(head, right);
  int with_deadline = 0, met = 0;
  for (const SmlpTaskResult& x : r.tasks) {
    std::string ok = "-";
    if (x.deadline) {
      ++with_deadline;
      met += x.schedulable ? 1 : 0;
      ok = x.schedulable ? "yes" : "NO";
    }
    std::vector<std::string> row{x.name,
                                 format_set(x.allowed_units),
                                 format_time(x.l_max, u),
                                 format_time(x.a_max, u),
                                 format_time(x.blocking_bound, u),
                                 format_time(x.response_bound, u)};
    if (jobs) row.push_back(format_time(x.job_bound, u));
    row.insert(row.end(), {x.deadline ? format_time(*x.deadline, u) : "-", ok});
    t.add(row);
  }
  out += t.render();
  out += fmt::format("\nschedulable: {} ({} of {} tasks with a deadline meet it)\n",
                     r.schedulable ? "yes" : "NO", met, with_deadline);
  for (const SmlpTaskResult& x : r.tasks) {
    if (!x.schedulable) out += fmt::format("  {}: {}\n", x.name, x.reason);
  }
  return out;
}

void run_smlp(const SmlpArgs& a) {
  const SmlpSystem system = load_smlp_system(a.file);
  SmlpOptions options;
  if (a.rho) {
    if (!(*a.rho >= 1.0)) throw InputError("--rho", "", fmt::format("{}", *a.rho), "must be >= 1");
    options.rho_override = a.rho;
  }
  const SmlpResult result = analyse_smlp(system, options);
  // Everything is computed before anything is printed: bad input never yields partial output.
  if (a.json) {
    fmt::print("{}\n", smlp_json(result, system.time_unit).dump(2));
  } else {
    fmt::print("{}", smlp_table(system, result, a.file));
  }
  for (const std::string& w : result.warnings) fmt::print(stderr, "gpurt: warning: {}\n", printable(w));
  if (a.check && !result.schedulable) exit_status() = 1;
}

}  // namespace

void add_analyze(CLI::App& app) {
  auto* analyze = app.add_subcommand("analyze", "Schedulability analyses of a task-system file");
  analyze->require_subcommand(1);

  auto* smlp =
      analyze->add_subcommand("smlp", "SM locking protocol bounds (FFT/SMLP seed, Lemmas 1-2, eq. 4)");
  smlp->footer(
      "File: {\"format\": \"gpurt/smlp@1\", \"time_unit\": \"us\", \"platform\": \"rtx3060ti\",\n"
      "       \"rho\": 1.1, \"tasks\": [{\"name\", \"wcet_by_units\": [L1, L2, ...],\n"
      "       \"rho\"?, \"allowed_units\"?, \"deadline\"?, \"period\"?, \"cpu_before\"?,\n"
      "       \"cpu_after\"?, \"copy_wait\"?}]}\n"
      "A job's bound is cpu_before + copy_wait + Lemma 2 + cpu_after (the CPU segments on the task's\n"
      "own CPU; copy_wait: the most its copies wait for other tasks' copies);\n"
      "without a deadline the period is one, and a bound above the period is not claimed.\n"
      "Example:\n  gpurt analyze smlp examples/smlp/cufft-rtx3060ti.json --json");
  auto args = std::make_shared<SmlpArgs>();
  smlp->add_option("FILE", args->file, "gpurt/smlp@1 task file")->required();
  smlp->add_flag("--json", args->json, "Print JSON instead of a table");
  smlp->add_flag("--check", args->check, "Exit 1 when the system is not schedulable");
  smlp->add_option("--rho", args->rho, "Use this rho for every task that selects sizes by rho")
      ->check(finite_in(1.0, 1e6));
  smlp->callback([args] { run_smlp(*args); });
  add_analyze_rtgpu(*analyze);
  add_analyze_pbs(*analyze);
}

}  // namespace gpurt::cli

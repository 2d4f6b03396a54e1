// gpurt simulate-system FILE --policy be|smlp|smlp-prio|kx|federated --horizon T [--json]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/sim/system.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct SystemArgs {
  std::string file, policy = "smlp", model = "calibrated";
  double horizon = 0, jitter = 0;
  int k = 0;
  const CLI::Option* k_option = nullptr;  ///< given or not (kx: 2 when not)
  bool kx_shared = false, job_lock = false, offsets = false, json = false;
  std::uint64_t seed = 1;
  std::int64_t max_jobs = 10'000'000;  // jobs released in all, without --max-jobs
};

void run_simulate_system(const SystemArgs& a) {
  const SmlpSystem system = load_smlp_system(a.file);
  SystemSimOptions o;
  try {
    o.policy = parse_arbitration(a.policy);
  } catch (const Error& e) {
    throw InputError("--policy", "", a.policy, e.what());
  }
  // Every task is released periodically: a task without a period or a deadline (which analyze
  // smlp accepts) cannot be simulated.
  for (std::size_t i = 0; i < system.tasks.size(); ++i) {
    const bool period = i < system.timing.size() && system.timing[i].period;
    if (!period && !system.tasks[i].deadline)
      throw InputError(a.file, fmt::format("tasks[{}]", i), system.tasks[i].name,
                       "has neither a period nor a deadline: simulate-system releases every task "
                       "periodically (give \"period\")");
  }
  o.horizon = horizon_arg(a.horizon, system.time_unit);
  // Jobs released in all, at most (periodic releases; jitter only lengthens the gaps).
  double releases = 0;
  for (std::size_t i = 0; i < system.tasks.size(); ++i) {
    const std::optional<Nanos> period = i < system.timing.size() && system.timing[i].period
                                            ? system.timing[i].period
                                            : system.tasks[i].deadline;
    if (period && period->count() > 0) {
      releases += std::ceil(static_cast<double>(o.horizon.count()) / static_cast<double>(period->count()));
    }
  }
  if (releases > static_cast<double>(a.max_jobs)) {
    throw InputError("command line", "--horizon", fmt::format("{}", a.horizon),
                     fmt::format("releases about {:.0f} jobs, more than --max-jobs {}; raise --max-jobs or "
                                 "shorten --horizon",
                                 releases, a.max_jobs));
  }
  if (!(a.jitter >= 0)) throw InputError("--jitter", "", fmt::format("{}", a.jitter), "must be >= 0");
  const bool k_given = a.k_option != nullptr && a.k_option->count() > 0;
  if (o.policy != Arbitration::k_exclusion && k_given)
    throw InputError("command line", "--k", std::to_string(a.k), "applies only to --policy kx");
  if (o.policy != Arbitration::k_exclusion && a.kx_shared)
    throw InputError("command line", "--kx-shared", "true", "applies only to --policy kx");
  const int k = k_given ? a.k : std::min(2, system.platform.units());
  if (k < 1 || k > system.platform.units())
    throw InputError("command line", "--k", std::to_string(k),
                     fmt::format("must be 1..{} (the platform's units)", system.platform.units()));
  o.k = k;
  o.kx_partitioned = !a.kx_shared;
  o.job_level_lock = a.job_lock;
  o.sporadic_jitter = a.jitter;
  if (a.model != "calibrated" && a.model != "ideal")
    throw InputError("--model", "", a.model, "must be calibrated or ideal");
  o.ideal_model = a.model == "ideal";
  const std::string model = o.ideal_model ? "ideal" : model_in_force(system.platform);
  o.random_offsets = a.offsets;
  o.seed = a.seed;
  const SystemSimResult r = simulate_system(system, o);

  const TimeUnit u = system.time_unit;
  const auto opt = [&](const std::optional<Nanos>& t) { return t ? format_time(*t, u) : std::string("-"); };
  // A bound assumes the task's jobs never overlap (Lemma 1 counts one request per task; a
  // dedicated partition serves one job at a time): one above the release separation is not a
  // bound (report and analyze smlp claim none). Each bound shown is checked on its own.
  std::vector<bool> policy_over(r.tasks.size(), false), smlp_over(r.tasks.size(), false);
  // A claimed bound the simulated worst passes: the analysis is wrong for this system, or the
  // simulator runs something its model leaves out (e.g. an AMD partition split unevenly over
  // shader engines). Marked "!", warned, exit 1, as `report` does.
  std::vector<bool> policy_broken(r.tasks.size(), false), smlp_broken(r.tasks.size(), false);
  // The SMLP column is shown under every policy for comparison, but it bounds only what it
  // analyses: the FIFO SMLP with the lock around the kernel. Under another policy (or a job
  // lock) a response above it is no fault of any analysis.
  const bool smlp_claimed = o.policy == Arbitration::smlp_fifo && !a.job_lock;
  for (std::size_t i = 0; i < r.tasks.size() && i < system.tasks.size(); ++i) {
    const bool periodic = i < system.timing.size() && system.timing[i].period.has_value();
    const std::optional<Nanos> sep = periodic ? system.timing[i].period : system.tasks[i].deadline;
    const TaskSimStats& s = r.tasks[i];
    const auto broken = [&](const std::optional<Nanos>& bound, bool over) {
      return bound && !over && s.jobs > 0 && s.worst_response > *bound;
    };
    if (!sep) {
      policy_broken[i] = broken(s.policy_bound, false);
      smlp_broken[i] = smlp_claimed && broken(s.smlp_bound, false);
      continue;
    }
    policy_over[i] = s.policy_bound && *s.policy_bound > *sep;
    smlp_over[i] = s.smlp_bound > *sep;
    policy_broken[i] = broken(s.policy_bound, policy_over[i]);
    smlp_broken[i] = smlp_claimed && broken(s.smlp_bound, smlp_over[i]);
    for (const auto& [over, what, bound] :
         {std::tuple{policy_over[i], "policy bound", s.policy_bound},
          std::tuple{smlp_over[i], "SMLP bound", std::optional{s.smlp_bound}}}) {
      if (!over) continue;
      fmt::print(stderr,
                 "gpurt: warning: task {}: the {} {} {} is above its {} {} {}: its jobs may queue behind "
                 "each other, which the bound does not cover (it holds only while each job ends within it)\n",
                 printable(s.name), what, format_time(*bound, u), to_string(u),
                 periodic ? "period" : "deadline (release separation)", format_time(*sep, u), to_string(u));
    }
  }
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    const TaskSimStats& s = r.tasks[i];
    for (const auto& [bad, what, bound] :
         {std::tuple{bool(policy_broken[i]), "policy bound", s.policy_bound},
          std::tuple{bool(smlp_broken[i]), "SMLP bound", std::optional{s.smlp_bound}}}) {
      if (!bad) continue;
      fmt::print(
          stderr,
          "gpurt: warning: task {}: simulated worst response {} {} is above its {} {} {}: the analysis "
          "does not cover what was simulated\n",
          printable(s.name), format_time(s.worst_response, u), to_string(u), what, format_time(*bound, u),
          to_string(u));
      exit_status() = 1;
    }
  }
  if (a.json) {
    Json tasks = Json::array();
    for (const TaskSimStats& s : r.tasks) {
      // A task that completed no job in the horizon has no responses: null, not 0.
      const auto response = [&](Nanos v) { return s.jobs > 0 ? Json(from_nanos(v, u)) : Json(nullptr); };
      Json t{{"name", s.name},
             {"jobs", s.jobs},
             {"worst_response", response(s.worst_response)},
             {"mean_response", response(s.mean_response)},
             {"worst_gpu_response", response(s.worst_gpu_response)},
             {"smlp_bound", from_nanos(s.smlp_bound, u)},
             {"deadline_misses", s.deadline_misses}};
      if (s.policy_bound) t["policy_bound"] = from_nanos(*s.policy_bound, u);
      if (s.deadline) t["deadline"] = from_nanos(*s.deadline, u);
      if (s.units > 0) t["units"] = s.units;
      const auto i = static_cast<std::size_t>(&s - r.tasks.data());
      // claimed: within the release separation (else no bound is claimed); holds: claimed and
      // not passed by the simulated worst.
      // Whether a bound holds is unknown (null) for a task that completed no job.
      const auto holds = [&](bool value) { return s.jobs > 0 ? Json(value) : Json(nullptr); };
      if (s.policy_bound) {
        t["policy_bound_claimed"] = !policy_over[i];
        t["policy_bound_holds"] = holds(!policy_over[i] && !policy_broken[i]);
      }
      // Claimed only under the policy it analyses (smlp, kernel lock); elsewhere a comparison.
      t["smlp_bound_claimed"] = smlp_claimed && !smlp_over[i];
      t["smlp_bound_holds"] = holds(smlp_claimed && !smlp_over[i] && !smlp_broken[i]);
      tasks.push_back(std::move(t));
    }
    fmt::print("{}\n", Json{{"simulated", true},
                            {"policy", std::string(to_string(o.policy))},
                            {"time_unit", std::string(to_string(u))},
                            {"platform", system.platform.id},
                            {"model", model},
                            {"tasks", std::move(tasks)}}
                           .dump(2));
    return;
  }
  Table t({"task", "jobs", "worst", "mean", "policy bound", "SMLP bound", "deadline", "misses"},
          {false, true, true, true, true, true, true, true});
  for (const TaskSimStats& s : r.tasks) {
    // A bound that does not hold (above the release separation) is marked, as the warning says.
    const auto i = static_cast<std::size_t>(&s - r.tasks.data());
    const bool ran = s.jobs > 0;  // no job completed: no response to show
    t.add({s.name, std::to_string(s.jobs), ran ? format_time(s.worst_response, u) : "-",
           ran ? format_time(s.mean_response, u) : "-",
           s.policy_bound ? opt(s.policy_bound) + (policy_over[i]     ? " *"
                                                   : policy_broken[i] ? " !"
                                                                      : "")
                          : "-",
           format_time(s.smlp_bound, u) + (smlp_over[i]     ? " *"
                                           : smlp_broken[i] ? " !"
                                                            : ""),
           opt(s.deadline), std::to_string(s.deadline_misses)});
  }
  fmt::print(
      "{} under {} on {} ({} model) — simulated end-to-end response times ({}; SMLP bound = "
      "cpu_before + copy_wait + Lemma 2 + cpu_after)\n\n{}",
      a.file, to_string(o.policy), system.platform.id, model, to_string(u), t.render());
  if (std::find(policy_over.begin(), policy_over.end(), true) != policy_over.end() ||
      std::find(smlp_over.begin(), smlp_over.end(), true) != smlp_over.end())
    fmt::print(
        "\n* above the task's period (without one, its deadline): its jobs may queue, which the bound does "
        "not cover\n");
  const auto any = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); };
  if (any(policy_broken) || any(smlp_broken))
    fmt::print("\n! below the simulated worst response: the analysis does not cover what was simulated\n");
}

}  // namespace

void add_simulate_system(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate-system",
                                 "Simulate a gpurt/smlp@1 task system under an arbitration policy");
  cmd->footer(
      "Jobs are released every `period` (default: the deadline) until the horizon and run\n"
      "cpu_before, one kernel on the units the policy gives, cpu_after. Policies: be (no arbitration),\n"
      "smlp (FIFO SMLP), smlp-prio (tasks listed first served first), kx (k-exclusion, slot s on\n"
      "partition s), federated (fixed dedicated units). Times in the file's time_unit.\n"
      "Example:\n  gpurt simulate-system examples/system/four-identical.json --policy kx --k 2 --horizon "
      "100000");
  auto args = std::make_shared<SystemArgs>();
  cmd->add_option("FILE", args->file, "gpurt/smlp@1 task file")->required();
  cmd->add_option("--policy", args->policy, "be, smlp, smlp-prio, kx or federated (default smlp)");
  cmd->add_option("--horizon", args->horizon, "Release jobs until this time (file's time unit)")
      ->required()
      ->check(finite_positive());
  args->k_option = cmd->add_option("--k", args->k,
                                   "k-exclusion slots, --policy kx only (default 2, or 1 on a one-unit GPU)");
  cmd->add_flag("--kx-shared", args->kx_shared, "k-exclusion without partitions (holders share the GPU)");
  cmd->add_flag("--job-lock", args->job_lock, "Hold the lock for whole jobs, CPU segments included");
  cmd->add_option("--jitter", args->jitter,
                  "Sporadic: release gaps T*(1+U(0,J)), J in [0, 100] (default 0: periodic)")
      ->check(finite_in(0.0, 100.0));
  cmd->add_flag("--random-offsets", args->offsets, "First release of each task U(0,T)");
  cmd->add_option("--seed", args->seed, "Seed for jitter and offsets (default 1)")->check(seed_value());
  cmd->add_option("--max-jobs", args->max_jobs,
                  "Refuse a run releasing more jobs than this (a whole number; default 10000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  add_model_option(cmd, args->model);
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args] { run_simulate_system(*args); });
}

}  // namespace gpurt::cli

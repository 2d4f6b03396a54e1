// gpurt report SYSTEM [--json] [--html FILE] [--measured DIR] [--policies P,...] [--horizon T] [--k K]
#include <fmt/format.h>
#include <algorithm>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/bench/plots.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/report.hpp"
#include "gpurt/exp/report_html.hpp"
#include "gpurt/trace/examiner_json.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

struct ReportArgs {
  std::string file, html, measured, model = "calibrated";
  std::vector<std::string> policies;
  double horizon = 0;
  int k = 0;  ///< 0: not given (2, or the platform's units when it has fewer)
  bool json = false;
};

std::string text_report(const Report& r, const std::string& file) {
  const TimeUnit u = r.time_unit;
  const auto opt = [&](const std::optional<Nanos>& t) { return t ? format_time(*t, u) : std::string("-"); };
  std::string out = fmt::format("Report of {} on {}: times in {}, jobs released over {} {}{}\n\n", file,
                                r.platform, to_string(u), format_time(r.horizon, u), to_string(u),
                                r.horizon_capped ? " (horizon shortened to bound the jobs)" : "");
  Table a({"analysis", "verdict", "task", "bound", "deadline", "note"},
          {false, false, false, true, true, false});
  std::string not_applicable;
  for (const ReportAnalysis& x : r.analyses) {
    if (!x.applicable) {
      not_applicable += fmt::format("  {}: {}\n", x.name, x.why);
      continue;
    }
    const std::string v = !x.schedulable ? "no verdict" : *x.schedulable ? "schedulable" : "NOT schedulable";
    for (const ReportTaskBound& b : x.tasks)
      a.add({x.name, v, b.name, opt(b.bound), opt(b.deadline), b.note});
    if (x.tasks.empty()) a.add({x.name, v, "", "", "", x.detail});
  }
  out += "Analyses (bounds are end to end, release to completion)\n\n" + a.render();
  if (!not_applicable.empty()) out += "\nNot applicable:\n" + not_applicable;
  Table s({"policy", "GPU busy", "task", "jobs", "max", "mean", "misses"},
          {false, true, false, true, true, true, true});
  std::string not_run;
  for (const ReportSimulation& x : r.simulated) {
    if (!x.ran) {
      not_run += fmt::format("  {}: {}\n", x.policy, x.why);
      continue;
    }
    const std::string util = x.gpu_utilisation ? fmt::format("{:.1f} %", 100 * *x.gpu_utilisation) : "-";
    for (const ReportSimTask& t : x.tasks) {
      s.add({x.policy, util, t.name, std::to_string(t.jobs), format_time(t.max_response, u),
             format_time(t.mean_response, u), std::to_string(t.misses)});
    }
  }
  out += fmt::format("\nSimulated ({} performance model)\n\n", r.model) + s.render();
  if (!not_run.empty()) out += "\nNot simulated:\n" + not_run;
  if (r.measured) {
    const ReportMeasured& m = *r.measured;
    Table t({"task", "jobs", "max", "mean", "misses"}, {false, true, true, true, true});
    for (const ReportMeasuredTask& x : m.tasks) {
      t.add({x.name, std::to_string(x.jobs), format_time(x.max_response, u), format_time(x.mean_response, u),
             std::to_string(x.misses)});
    }
    out += fmt::format("\nMeasured ({}, no arbitration){}\n\n", m.source,
                       m.simulated ? ": SIMULATED result files (--backend sim), not a GPU run" : "");
    out += t.render();
    for (const ReportMeasuredAbove& x : m.above) {
      out += fmt::format(
          "  note: {} measured max {} > {} bound {} (the bound assumes its policy and the "
          "model's WCETs)\n",
          x.task, format_time(x.measured, u), x.analysis, format_time(x.bound, u));
    }
  }
  out += "\nRecommendation: " + r.recommendation + "\n";
  if (r.violations.empty()) {
    out +=
        fmt::format("Consistency: {} simulated maxima checked against their bounds, none above\n", r.checked);
  } else {
    out += fmt::format("Consistency: VIOLATED ({} of {} checks)\n", r.violations.size(), r.checked);
    for (const ReportViolation& v : r.violations) {
      out += fmt::format("  {} under {}: simulated {} > bound {} ({})\n", v.task, v.policy,
                         format_time(v.simulated, u), format_time(v.bound, u), v.analysis);
    }
  }
  return out;
}

void run_report(const ReportArgs& a) {
  if (!a.html.empty()) {  // before any work
    check_output_file(a.html, "--html");
    check_output_not_input(a.html, {a.file}, "--html");
    if (!a.measured.empty()) check_output_outside(a.html, a.measured, "--html");
  }
  System system = load_any_system(a.file);
  apply_model_option(system.platform, a.model);
  ReportOptions o;
  for (const std::string& p : a.policies) {
    // --policies a,b and --policies a --policies b both work.
    std::size_t start = 0;
    while (start <= p.size()) {
      const std::size_t comma = std::min(p.find(',', start), p.size());
      if (comma == start) throw InputError("command line", "--policies", p, "holds an empty policy name");
      o.policies.push_back(p.substr(start, comma - start));
      start = comma + 1;
    }
  }
  if (a.horizon > 0) o.horizon = horizon_arg(a.horizon, system.time_unit);
  // Unless given, k is 2, or 1 on a one-unit platform (a fifo@1 system is one unit, the GPU).
  if (a.k == 0) {
    o.k = std::min(2, system.platform.units());
  } else if (a.k > system.platform.units()) {
    throw InputError(
        "command line", "--k", std::to_string(a.k),
        fmt::format("must be 1..{} (the units of {})", system.platform.units(), system.platform.id));
  } else {
    o.k = a.k;
  }
  o.record_jobs = !a.html.empty();
  // The result files are read (and checked against the system) before the analyses run.
  std::optional<ReportMeasured> measured;
  if (!a.measured.empty()) {
    measured = measured_figures(system, load_examiner_results(result_files_in(a.measured)), a.measured);
  }
  Report r = make_report(system, o);
  if (measured) add_measured(r, std::move(*measured));
  if (!a.html.empty()) write_file_atomically(a.html, report_html(r, a.file));
  if (a.json) {
    fmt::print("{}\n", report_json(r).dump(2));
  } else {
    fmt::print("{}", text_report(r, a.file));
  }
  if (!r.violations.empty()) exit_status() = 1;
}

}  // namespace

void add_report(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("report", "Every analysis and simulated policy for one task system, side by side");
  cmd->footer(
      "Derives each seed's model from the system (gpurt/system@1, or any task format), runs every\n"
      "analysis that applies and simulates every policy that applies on the platform's performance\n"
      "model, recommends a policy, and checks that no simulated maximum exceeds the bound of the same\n"
      "policy (exit 1 if one does). Policies: be, smlp, smlp-prio, kx, federated, rtgpu-federated,\n"
      "pbs-table, fifo. Times in the file's time_unit. docs/report.md.\n"
      "Example:\n  gpurt report examples/system/fft-radar.system.json --html report.html");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("SYSTEM", args->file, "gpurt/system@1 file (or smlp@1, rtgpu@1, pbs@1, fifo@1)")
      ->required();
  cmd->add_flag("--json", args->json, "Print the report as JSON (gpurt/report@1)");
  cmd->add_option("--html", args->html, "Also write a self-contained HTML report");
  cmd->add_option("--measured", args->measured,
                  "Folder of result files of `gpurt bench SYSTEM --out DIR` to put beside the figures");
  cmd->add_option("--policies", args->policies, "Simulate only these policies (comma-separated)");
  cmd->add_option("--horizon", args->horizon,
                  "Release jobs until this time (file's unit; default one hyperperiod, capped)")
      ->check(finite_positive());
  cmd->add_option("--k", args->k, "k-exclusion slots for kx (default 2; 1 on a one-unit platform)")
      ->check(CLI::Range(1, 1 << 20));
  add_model_option(cmd, args->model);
  cmd->callback([args] { run_report(*args); });
}

}  // namespace gpurt::cli

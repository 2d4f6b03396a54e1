// PBS seed Figure 4 (schedulability ratio vs utilisation, three policies, three slowdown
// scenarios) and Figure 5b (GPUSched time vs number of tasks at U = 1) as CSV.
// Usage: pbs_figures OUT_DIR [SETS_PER_POINT=50] [SEED=1]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpurt/core/io.hpp"
#include "pbs_sweep.hpp"

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: pbs_figures OUT_DIR [SETS_PER_POINT] [SEED]\n");
    return 2;
  }
  const std::string out = argv[1];
  const int sets = argc > 2 ? std::atoi(argv[2]) : 50;
  const auto seed = static_cast<std::uint64_t>(argc > 3 ? std::atoll(argv[3]) : 1);
  std::string fig4 =
      "scenario,utilization,tasks,sets,gpusched,edf_serial,edf_parallel,gpusched_unknown,"
      "gpusched_median_ms,gpusched_max_ms\n";
  for (auto scenario : {gpurt::PbsSlowdown::small, gpurt::PbsSlowdown::large, gpurt::PbsSlowdown::mixed}) {
    for (int step = 1; step <= 10; ++step) {
      const double u = 0.2 * step;
      const auto p = gpurt::perf::pbs_point({.tasks = 5, .utilization = u, .slowdown = scenario}, sets,
                                            seed * 1000 + static_cast<std::uint64_t>(step));
      fig4 += fmt::format("{},{:.1f},5,{},{},{},{},{},{:.3f},{:.3f}\n", gpurt::to_string(scenario), u, p.sets,
                          p.gpusched, p.edf_serial, p.edf_parallel, p.gpusched_unknown,
                          quantile(p.gpusched_seconds, 0.5) * 1e3, quantile(p.gpusched_seconds, 1.0) * 1e3);
      fmt::print(stderr, "figure 4: {} U={:.1f} done\n", gpurt::to_string(scenario), u);
    }
  }
  std::string fig5 = "tasks,utilization,sets,median_ms,p90_ms,max_ms,median_vertices,unknown\n";
  for (int n = 2; n <= 10; ++n) {
    const auto p =
        gpurt::perf::pbs_point({.tasks = n, .utilization = 1.0, .slowdown = gpurt::PbsSlowdown::large}, sets,
                               seed * 7919 + static_cast<std::uint64_t>(n));
    std::vector<double> vertices(p.gpusched_vertices.begin(), p.gpusched_vertices.end());
    fig5 += fmt::format("{},1.0,{},{:.3f},{:.3f},{:.3f},{:.0f},{}\n", n, p.sets,
                        quantile(p.gpusched_seconds, 0.5) * 1e3, quantile(p.gpusched_seconds, 0.9) * 1e3,
                        quantile(p.gpusched_seconds, 1.0) * 1e3, quantile(vertices, 0.5), p.gpusched_unknown);
    fmt::print(stderr, "figure 5b: n={} done\n", n);
  }
  // Figure 5c: the whole graph (explore all) with and without merging dominated vertices,
  // 5 tasks at U = 1, large slowdowns.
  std::string fig5c =
      "set,schedulable,vertices_merge,vertices_no_merge,ms_merge,ms_no_merge,no_merge_complete\n";
  const gpurt::Rng root(seed * 31337);
  for (int i = 0; i < sets; ++i) {
    gpurt::Rng rng = root.fork(static_cast<std::uint64_t>(i));
    const auto system = gpurt::generate_pbs_system(rng, {.tasks = 5, .utilization = 1.0});
    if (!system) continue;
    const auto a = gpurt::analyse_pbs(*system, {.explore_all = true});
    const auto b =
        gpurt::analyse_pbs(*system, {.explore_all = true, .max_vertices = 5'000'000, .merge = false});
    fig5c += fmt::format("{},{},{},{},{:.3f},{:.3f},{}\n", i, a.schedulable, a.stats.vertices_created,
                         b.stats.vertices_created, a.stats.seconds * 1e3, b.stats.seconds * 1e3, b.complete);
  }
  fmt::print(stderr, "figure 5c done\n");
  gpurt::write_file_atomically(out + "/figure5c.csv", fig5c);
  gpurt::write_file_atomically(out + "/figure4.csv", fig4);
  gpurt::write_file_atomically(out + "/figure5b.csv", fig5);
  return 0;
}

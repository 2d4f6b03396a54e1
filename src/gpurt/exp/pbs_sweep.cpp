#include "gpurt/exp/pbs_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::string_view to_string(PbsFigure figure) {
  switch (figure) {
    case PbsFigure::fig4:
      return "4";
    case PbsFigure::fig5a:
      return "5a";
    case PbsFigure::fig5b:
      return "5b";
    case PbsFigure::fig5c:
      return "5c";
  }
  return "?";
}

std::optional<PbsFigure> parse_pbs_figure(std::string_view text) {
  for (PbsFigure f : {PbsFigure::fig4, PbsFigure::fig5a, PbsFigure::fig5b, PbsFigure::fig5c}) {
    if (to_string(f) == text) return f;
  }
  return std::nullopt;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)))];
}

namespace {

std::string ms(double seconds) { return fmt::format("{:.3f}", seconds * 1e3); }
// Empty when no set was drawn at the point: a chart draws no zero there (docs/sweeps.md).
std::string ratio(int count, int sets) {
  return sets > 0 ? fmt::format("{}", static_cast<double>(count) / sets) : std::string();
}

/// Figure 4 item: the three verdicts and whether GPUSched hit the cap; empty when the
/// generator found no set.
SweepItem figure4_item(const std::optional<PbsSystem>& system, std::uint64_t max_vertices) {
  if (!system) return {};
  const PbsResult g = analyse_pbs(*system, {.policy = PbsPolicy::gpusched, .max_vertices = max_vertices});
  const bool serial = analyse_pbs(*system, {.policy = PbsPolicy::edf_serial}).schedulable;
  const bool parallel = analyse_pbs(*system, {.policy = PbsPolicy::edf_parallel}).schedulable;
  return {g.schedulable ? 1.0 : 0.0, serial ? 1.0 : 0.0, parallel ? 1.0 : 0.0, g.complete ? 0.0 : 1.0};
}

std::vector<std::string> figure4_fields(const std::vector<SweepItem>& items) {
  int sets = 0;
  std::array<int, 4> count{};
  for (const SweepItem& it : items) {
    if (it.empty()) continue;
    ++sets;
    for (std::size_t k = 0; k < 4; ++k) count[k] += it[k] > 0 ? 1 : 0;
  }
  return {std::to_string(sets), ratio(count[0], sets), ratio(count[1], sets), ratio(count[2], sets),
          std::to_string(count[3])};
}

/// Figures 5a/5b item: GPUSched's wall time, vertices created, and whether it hit the cap.
SweepItem time_item(const std::optional<PbsSystem>& system, std::uint64_t max_vertices) {
  if (!system) return {};
  const PbsResult g = analyse_pbs(*system, {.policy = PbsPolicy::gpusched, .max_vertices = max_vertices});
  return {g.stats.seconds, static_cast<double>(g.stats.vertices_created), g.complete ? 0.0 : 1.0};
}

std::vector<std::string> time_fields(const std::vector<SweepItem>& items) {
  std::vector<double> seconds, vertices;
  int unknown = 0;
  for (const SweepItem& it : items) {
    if (it.empty()) continue;
    seconds.push_back(it[0]);
    vertices.push_back(it[1]);
    unknown += it[2] > 0 ? 1 : 0;
  }
  // No set generated at this point: no statistics (empty cells, a gap in a chart), not zeros.
  if (seconds.empty()) return {"0", "", "", "", "", "", "", "", "", "", std::to_string(unknown)};
  const double mean =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  return {std::to_string(seconds.size()),
          ms(quantile(seconds, 0)),
          ms(quantile(seconds, 0.25)),
          ms(quantile(seconds, 0.5)),
          ms(quantile(seconds, 0.75)),
          ms(quantile(seconds, 0.9)),
          ms(quantile(seconds, 1)),
          ms(mean),
          fmt::format("{:.0f}", quantile(vertices, 0.5)),
          fmt::format("{:.0f}", quantile(vertices, 1)),
          std::to_string(unknown)};
}

/// Figure 5c item: the whole graph with every merge (the seed's GPUSched), with none at all
/// (the tree of every eligible order, the seed's red curve; stops at the cap), and with
/// identical vertices merged only.
SweepItem graph_item(const std::optional<PbsSystem>& system, std::uint64_t max_vertices) {
  if (!system) return {};
  const PbsResult a =
      analyse_pbs(*system, {.explore_all = true, .whole_graph = true, .max_vertices = max_vertices});
  const PbsResult b =
      analyse_pbs(*system, {.explore_all = true, .max_vertices = max_vertices, .merge = PbsMerge::none});
  const PbsResult c = analyse_pbs(
      *system,
      {.explore_all = true, .whole_graph = true, .max_vertices = max_vertices, .merge = PbsMerge::identical});
  return {a.schedulable ? 1.0 : 0.0,
          static_cast<double>(a.stats.vertices_created),
          static_cast<double>(b.stats.vertices_created),
          a.stats.seconds,
          b.stats.seconds,
          b.complete ? 1.0 : 0.0,
          static_cast<double>(c.stats.vertices_created)};
}

std::vector<std::string> graph_fields(const std::vector<SweepItem>& items) {
  const SweepItem& it = items.front();
  if (it.empty()) return {"0", "", "", "", "", "", "", ""};
  return {"1",
          it[0] > 0 ? "true" : "false",
          fmt::format("{:.0f}", it[1]),
          fmt::format("{:.0f}", it[2]),
          ms(it[3]),
          ms(it[4]),
          it[5] > 0 ? "true" : "false",
          fmt::format("{:.0f}", it[6])};
}

}  // namespace

SweepExperiment pbs_sweep_experiment(const PbsSweepOptions& o) {
  if (o.sets < 1) throw Error("sweep: sets must be >= 1");
  SweepExperiment e;
  const std::string scenario(to_string(o.slowdown));
  std::vector<PbsGenOptions> gen;  // per point
  const bool by_tasks = o.figure == PbsFigure::fig5b;
  if (o.figure == PbsFigure::fig5c) {
    e.key_columns = {"scenario", "utilization", "tasks", "set"};
    e.value_columns = {"generated", "schedulable", "vertices_merge",    "vertices_no_merge",
                       "ms_merge",  "ms_no_merge", "no_merge_complete", "vertices_identical"};
    for (int s = 0; s < o.sets; ++s) {
      e.keys.push_back({scenario, "1", std::to_string(o.tasks), std::to_string(s)});
      e.items.push_back(1);
      gen.push_back({.tasks = o.tasks, .utilization = 1.0, .slowdown = o.slowdown});
    }
  } else {
    e.key_columns = {"scenario", "utilization", "tasks"};
    if (o.figure == PbsFigure::fig4) {
      e.value_columns = {"sets", "gpusched", "edf_serial", "edf_parallel", "gpusched_unknown"};
    } else {
      e.value_columns = {"sets",   "min_ms",  "p25_ms",          "median_ms",    "p75_ms", "p90_ms",
                         "max_ms", "mean_ms", "median_vertices", "max_vertices", "unknown"};
    }
    std::vector<double> us = o.utilizations;
    std::vector<int> ns = o.task_counts;
    if (by_tasks) {
      if (ns.empty()) ns = {2, 3, 4, 5, 6, 7, 8, 9, 10};
      us = {1.0};
    } else {
      if (us.empty()) {
        for (int step = 1; step <= 10; ++step) us.push_back(0.2 * step);
      }
      ns = {o.tasks};
    }
    for (int n : ns) {
      for (double u : us) {
        e.keys.push_back({scenario, fmt::format("{}", std::round(u * 1e9) / 1e9), std::to_string(n)});
        e.items.push_back(o.sets);
        gen.push_back({.tasks = n, .utilization = u, .slowdown = o.slowdown});
      }
    }
  }
  // What each column holds, checked on a resumed row (a set count above --sets, a ratio of 7).
  using V = SweepValue;
  if (o.figure == PbsFigure::fig4) {
    e.value_kinds = {V::count, V::ratio, V::ratio, V::ratio, V::count};
  } else if (o.figure == PbsFigure::fig5c) {
    e.value_kinds = {V::count,       V::flag,        V::count, V::count,
                     V::nonnegative, V::nonnegative, V::flag,  V::count};
  } else {
    e.value_kinds = {V::count,       V::nonnegative, V::nonnegative, V::nonnegative,
                     V::nonnegative, V::nonnegative, V::nonnegative, V::nonnegative,
                     V::nonnegative, V::count,       V::count};
  }
  e.check_values =
      [fig5c = o.figure == PbsFigure::fig5c, max_sets = o.sets](
          std::size_t,
          const std::vector<std::string>& v) -> std::optional<std::pair<std::size_t, std::string>> {
    // The first column counts the sets generated: at most the sets a point draws (one in 5c); the
    // last counts some of them.
    const double generated = v[0].empty() ? 0 : std::stod(v[0]);
    const int most = fig5c ? 1 : max_sets;
    if (generated > most)
      return std::pair{std::size_t{0}, fmt::format("is more than the {} set(s) a point draws", most)};
    if (!fig5c && !v.back().empty() && std::stod(v.back()) > generated)
      return std::pair{v.size() - 1, fmt::format("is more than the {} set(s) generated", v[0])};
    return std::nullopt;
  };
  const PbsFigure figure = o.figure;
  const int sets = o.figure == PbsFigure::fig5c ? 1 : o.sets;
  e.run_item = [gen, figure, sets, seed = o.seed, cap = o.max_vertices](std::size_t p, int j) {
    Rng rng = Rng(seed).fork(p * static_cast<std::size_t>(sets) + static_cast<std::size_t>(j));
    const std::optional<PbsSystem> system = generate_pbs_system(rng, gen[p]);
    switch (figure) {
      case PbsFigure::fig4:
        return figure4_item(system, cap);
      case PbsFigure::fig5c:
        return graph_item(system, cap);
      default:
        return time_item(system, cap);
    }
  };
  e.finish_point = [figure](std::size_t, const std::vector<SweepItem>& items) {
    switch (figure) {
      case PbsFigure::fig4:
        return figure4_fields(items);
      case PbsFigure::fig5c:
        return graph_fields(items);
      default:
        return time_fields(items);
    }
  };
  return e;
}

PbsPoint pbs_point(const PbsGenOptions& options, int sets, std::uint64_t seed, std::uint64_t max_vertices) {
  PbsPoint point;
  const Rng root(seed);
  for (int i = 0; i < sets; ++i) {
    Rng rng = root.fork(static_cast<std::uint64_t>(i));
    const auto system = generate_pbs_system(rng, options);
    if (!system) continue;
    ++point.sets;
    const PbsResult g = analyse_pbs(*system, {.policy = PbsPolicy::gpusched, .max_vertices = max_vertices});
    point.gpusched += g.schedulable ? 1 : 0;
    point.gpusched_unknown += g.complete ? 0 : 1;
    point.gpusched_seconds.push_back(g.stats.seconds);
    point.gpusched_vertices.push_back(g.stats.vertices_created);
    point.edf_serial += analyse_pbs(*system, {.policy = PbsPolicy::edf_serial}).schedulable ? 1 : 0;
    point.edf_parallel += analyse_pbs(*system, {.policy = PbsPolicy::edf_parallel}).schedulable ? 1 : 0;
  }
  return point;
}

}  // namespace gpurt

// GPUSched, plain (PBS seed Algorithm 1 without the shortcuts of pbs_search.cpp): the
// yardstick the fast search is tested against.
//
// Breadth-first over the schedule graph; every permutation of every subset of the ready jobs is
// put to the oracle (§3.3, "invoking an oracle on each permutation of each distinct subset"),
// each eligible one creates a vertex; a frame is pruned only when a job of its batch finishes
// after its deadline (Algorithm 1 line 23); a vertex with nothing ready fast-forwards to the
// next arrival (Algorithm 4). Domination is used only for Δ = 0 — a vertex identical to one
// already created is dropped, which §3.5 states is exact ("the two vertices are equivalent").
// Without Merge/Split for Δ > 0 this is plain exhaustive enumeration of PBS schedules, so its
// verdict is exact by construction; it explores the whole graph (no early stop).
#include <chrono>
#include <map>
#include <set>

#include "gpurt/analysis/pbs_internal.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt::pbs_detail {

namespace {

struct Vertex {
  std::int64_t t = 0;
  std::vector<std::int32_t> done;
  std::int64_t parent = -1;  // index of the vertex the frame came from
  PbsFrame frame;            // the frame from the parent to this vertex
};

// Calls f(order) for every permutation of every non-empty subset of `ready`.
template <class F>
void for_each_batch(int n, TaskMask ready, std::vector<int>& order, TaskMask used, F&& f) {
  for (int i = 0; i < n; ++i) {
    const TaskMask bit = TaskMask{1} << i;
    if ((ready & bit) == 0 || (used & bit) != 0) continue;
    order.push_back(i);
    f(order, used | bit);
    for_each_batch(n, ready, order, used | bit, f);
    order.pop_back();
  }
}

}  // namespace

PbsResult gpusched_reference(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PbsOracle oracle(system);
  PbsResult result;
  result.policy = PbsPolicy::gpusched_reference;
  result.hyperperiod = Nanos{jobs.h};
  PbsStats& stats = result.stats;

  std::vector<Vertex> graph;
  std::set<std::pair<std::int64_t, std::vector<std::int32_t>>> seen;
  graph.push_back(Vertex{0, std::vector<std::int32_t>(static_cast<std::size_t>(jobs.n), 0), -1, {}});
  seen.emplace(0, graph[0].done);
  stats.vertices_created = 1;
  std::int64_t best = -1;
  std::size_t bytes = 0;
  for (std::size_t next = 0; next < graph.size(); ++next) {
    std::int64_t t = graph[next].t;
    const std::vector<std::int32_t> done = graph[next].done;
    std::int64_t finished = 0;
    for (std::int32_t k : done) finished += k;
    if (finished == jobs.total_jobs) {  // all jobs of the hyperperiod done by their deadlines
      ++stats.schedulable_end_vertices;
      if (best < 0 || t < graph[static_cast<std::size_t>(best)].t) best = static_cast<std::int64_t>(next);
      continue;
    }
    TaskMask ready = jobs.ready(t, done);
    if (ready == 0) {
      ++stats.fast_forwards;
      t = jobs.next_arrival(t, done);
      ready = jobs.ready(t, done);
    }
    std::vector<int> order;
    for_each_batch(jobs.n, ready, order, 0, [&](const std::vector<int>& batch, TaskMask set) {
      if (!oracle.eligible(batch)) return;
      ++stats.edges;
      const std::int64_t end = t + jobs.completion(set);
      std::vector<std::int32_t> after = done;
      bool miss = false;
      for (int i : batch) {
        miss = miss || end > jobs.due(i, after[static_cast<std::size_t>(i)]);
        ++after[static_cast<std::size_t>(i)];
      }
      if (miss) {
        ++stats.vertices_pruned;
        return;
      }
      if (!seen.emplace(end, after).second) {
        ++stats.vertices_merged;
        return;
      }
      ++stats.vertices_created;
      bytes += sizeof(Vertex) + 2 * after.size() * sizeof(std::int32_t) + 96;
      graph.push_back(
          Vertex{end, std::move(after), static_cast<std::int64_t>(next), make_frame(t, end, batch, done)});
    });
    if (stats.vertices_created > options.max_vertices) {
      result.complete = false;
      break;
    }
  }
  result.schedulable = best >= 0;
  if (best >= 0) result.complete = true;
  for (std::int64_t v = best; v > 0; v = graph[static_cast<std::size_t>(v)].parent) {
    result.table.insert(result.table.begin(), graph[static_cast<std::size_t>(v)].frame);
  }
  stats.oracle_queries = oracle.queries();
  stats.oracle_simulations = oracle.simulations();
  stats.peak_memory_bytes = bytes + oracle.memory_bytes();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gpurt::pbs_detail

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
//
// gpusched_tree (PbsMerge::none) is the same expansion depth first with no merge at all, not
// even of identical vertices: every eligible order of every ready subset is a vertex of its own,
// so the graph is the tree of schedule prefixes — the seed's Figure 5c "without merging" curve
// (§6.2: 10^7 vertices by the 14th job). Memory is the path only; the vertex count is bounded
// by max_vertices / max_seconds like the other searches.
#include <chrono>
#include <functional>
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

class TreeWalk {
 public:
  TreeWalk(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options)
      : _options(options),
        _jobs(jobs),
        _oracle(system),
        _done(static_cast<std::size_t>(jobs.n), 0),
        _start(std::chrono::steady_clock::now()) {}

  PbsResult run() {
    PbsResult result;
    result.policy = PbsPolicy::gpusched;
    result.hyperperiod = Nanos{_jobs.h};
    _stats.vertices_created = 1;
    walk(0, 0);
    result.schedulable = _stats.schedulable_end_vertices > 0;
    result.complete = _stopped_by.empty() || (result.schedulable && !_options.explore_all);
    if (!result.complete) result.stopped_by = _stopped_by;
    result.table = std::move(_best);
    _stats.oracle_queries = _oracle.queries();
    _stats.oracle_simulations = _oracle.simulations();
    _stats.peak_memory_bytes = _oracle.memory_bytes() + _path.capacity() * sizeof(PbsFrame);
    result.stats = _stats;
    return result;
  }

 private:
  bool stop() const {
    return !_stopped_by.empty() || (_stats.schedulable_end_vertices > 0 && !_options.explore_all);
  }

  // Records a spent budget in _stopped_by (then stop() is true).
  void spend() {
    if (_stats.vertices_created > _options.max_vertices) _stopped_by = "max-vertices";
    if (_options.max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - _start).count() >
            _options.max_seconds) {
      _stopped_by = "max-seconds";
    }
  }

  // The vertex (t, _done) after `finished` jobs.
  void walk(std::int64_t t, std::int64_t finished) {
    if (finished == _jobs.total_jobs) {
      ++_stats.schedulable_end_vertices;
      if (_best.empty() || _path.back().end < _best.back().end) _best = _path;
      return;
    }
    spend();
    if (stop()) return;
    TaskMask ready = _jobs.ready(t, _done);
    if (ready == 0) {  // Algorithm 4
      ++_stats.fast_forwards;
      t = _jobs.next_arrival(t, _done);
      ready = _jobs.ready(t, _done);
    }
    std::vector<int> order;
    for_each_batch(_jobs.n, ready, order, 0, [&](const std::vector<int>& batch, TaskMask set) {
      if ((++_tries & 1023) == 0) spend();
      if (stop() || !_oracle.eligible(batch)) return;
      ++_stats.edges;
      const std::int64_t end = t + _jobs.completion(set);
      bool miss = false;
      for (int i : batch) miss = miss || end > _jobs.due(i, _done[static_cast<std::size_t>(i)]);
      if (miss) {  // Algorithm 1 line 23
        ++_stats.vertices_pruned;
        return;
      }
      spend();
      if (stop()) return;
      ++_stats.vertices_created;
      _path.push_back(make_frame(t, end, batch, _done));
      for (int i : batch) ++_done[static_cast<std::size_t>(i)];
      walk(end, finished + static_cast<std::int64_t>(batch.size()));
      for (int i : batch) --_done[static_cast<std::size_t>(i)];
      _path.pop_back();
    });
  }

  PbsOptions _options;
  const PbsJobs& _jobs;
  PbsOracle _oracle;
  std::vector<std::int32_t> _done;
  std::vector<PbsFrame> _path, _best;
  std::chrono::steady_clock::time_point _start;
  PbsStats _stats;
  std::uint64_t _tries = 0;  // orders put to the oracle
  std::string _stopped_by;
};

}  // namespace

PbsResult gpusched_tree(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options) {
  return TreeWalk(system, jobs, options).run();
}

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
      result.stopped_by = "max-vertices";
      break;
    }
    if (options.max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            options.max_seconds) {
      result.complete = false;
      result.stopped_by = "max-seconds";
      break;
    }
  }
  result.schedulable = best >= 0;
  if (best >= 0 && !options.explore_all) {  // a schedule proves the verdict
    result.complete = true;
    result.stopped_by.clear();
  }
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

// GPUSched (PBS seed §3), the fast exact search.
//
// A vertex is (t, exe): the time a scheduling frame starts and how many jobs of each task are
// done (with D <= T at most the next job of a task is ready, so exe is a count per task and
// ready(t, exe) follows from it). The search is a depth-first walk of the schedule graph that
// stops at the first vertex whose jobs are all done (that path is the table), with these
// reductions; each keeps Theorem 3.13 (unschedulable only if no PBS schedule exists):
//
// 1. Successors per *set* of jobs, not per order (PbsOracle::eligible_subsets): the successor's
//    time t + C(β), its exe and its ready set depend only on the set β, so every eligible order
//    of one set yields the same vertex; one witness order goes in the table.
// 2. Early miss detection: a frame ending at t' is pruned also when some job not yet done has
//    its deadline <= t' (it can only finish after t', since C > 0). Algorithm 1 would prune the
//    same paths later, when that job runs.
// 3. FastForward (Algorithm 4): a vertex with nothing ready moves to the next arrival. Every
//    vertex dominated by it (same exe, later by Δ < next arrival − t) idles to the same instant
//    and becomes identical, which is why Algorithm 4 empties dom(v).
// 4. Domination with Merge and Split, hashed: explored vertices are kept per key (exe, ready)
//    with their time t and a *slack* σ: the largest Δ for which the vertex (t + Δ, exe) is known
//    to fail whenever (t, exe) failed. A new vertex with the same key at t_j, t <= t_j <= t + σ,
//    is merged (not explored): every batch from it gives the successor of the same batch from
//    the old vertex shifted by Δ = t_j − t, and by the definition of σ each of those fails
//    (induction on the jobs left): a pruned successor stays pruned later (Lemma 3.5), a
//    fast-forwarded one idles to the same vertex, an explored one fails within its own slack.
//    σ(v) = min over v's edges of what that edge tolerates: ∞ for a pruned edge; the gap to the
//    next arrival − 1 for a fast-forwarded successor (Lemma 3.10's condition A(t', t'+Δ) = ∅);
//    σ(child) for an explored or merged successor (σ(w) − (t_child − t_w) when merged into w);
//    and never more than next arrival − t − 1 at v itself (else the shifted vertex has another
//    ready set). A same-key vertex beyond the slack, or earlier than every kept one, is explored:
//    that is Split — the dominated vertex's subtree is built exactly where it differs.
//    Looking the key up in a hash map makes the domination check O(1) expected instead of
//    Algorithm 1's scan over all vertices.
// 5. Order: batches holding the most urgent ready job first, then shorter frames, then larger
//    batches. Any order visits the same graph when nothing is schedulable, so the verdict is
//    unchanged; a good order only finds a schedulable path sooner.
#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "gpurt/analysis/pbs_internal.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt::pbs_detail {

namespace {

constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;

struct Key {
  std::vector<std::int32_t> done;
  TaskMask ready = 0;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ k.ready;
    for (std::int32_t d : k.done) h = (h ^ static_cast<std::uint32_t>(d)) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct Entry {
  std::int64_t t = 0;
  std::int64_t sigma = 0;
  bool failed = true;
};

class FastSearch {
 public:
  FastSearch(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options)
      : _options(options), _jobs(jobs), _oracle(system), _done(static_cast<std::size_t>(_jobs.n), 0) {
    if (_jobs.total_jobs > 20'000) {
      throw Error("GPUSched: " + std::to_string(_jobs.total_jobs) +
                  " jobs in the hyperperiod (more than 20000; the search recurses once per frame)");
    }
  }

  PbsResult run() {
    PbsResult result;
    result.policy = PbsPolicy::gpusched;
    result.hyperperiod = Nanos{_jobs.h};
    _stats.vertices_created = 1;  // v0: t = 0, exe = ∅, ready = A(0, 0) (every task's job 0)
    explore(0);
    result.schedulable = _stats.schedulable_end_vertices > 0;
    result.complete = !_aborted || result.schedulable;
    result.table = std::move(_best);
    _stats.oracle_queries = _oracle.queries();
    _stats.oracle_simulations = _oracle.simulations();
    _stats.peak_memory_bytes = _memo_bytes + _oracle.memory_bytes();
    result.stats = _stats;
    return result;
  }

 private:
  struct Outcome {
    bool success = false;
    std::int64_t sigma = 0;
  };

  bool stop() const { return _aborted || (_stats.schedulable_end_vertices > 0 && !_options.explore_all); }

  // Explores the vertex (t, _done); its ready set is not empty.
  Outcome explore(std::int64_t t) {
    const TaskMask ready = _jobs.ready(t, _done);
    const std::int64_t arrival = _jobs.next_arrival(t, _done);
    Outcome out{false, arrival < 0 ? kInf : arrival - t - 1};
    const auto& batches = _oracle.eligible_subsets(ready);
    for (std::size_t b : urgency_order(t, ready, batches)) {
      const PbsOracle::Batch& batch = batches[b];
      ++_stats.edges;
      const std::int64_t end = t + _jobs.completion(batch.set);
      PbsFrame frame = make_frame(t, end, batch.order, _done);
      bool miss = false;
      for (int i : batch.order) {
        auto& k = _done[static_cast<std::size_t>(i)];
        miss = miss || end > _jobs.due(i, k);
        ++k;
      }
      miss = miss || pending_miss(end);
      if (!miss) {
        ++_stats.vertices_created;
        _path.push_back(std::move(frame));
        const Outcome child = visit(end);
        _path.pop_back();
        out.success = out.success || child.success;
        out.sigma = std::min(out.sigma, child.sigma);
      } else {
        ++_stats.vertices_pruned;  // contributes ∞ to the slack: later is no better
      }
      for (int i : batch.order) --_done[static_cast<std::size_t>(i)];
      if (stop()) break;
    }
    return out;
  }

  // The successor vertex at `t` (already counted and on the path): end, fast-forward, merge
  // or explore. Returns whether a schedulable path goes through it and the slack it tolerates.
  Outcome visit(std::int64_t t) {
    if (_completed() == _jobs.total_jobs) {
      ++_stats.schedulable_end_vertices;
      if (_best.empty() || _path.back().end < _best.back().end) _best = _path;
      return Outcome{true, kInf};
    }
    TaskMask ready = _jobs.ready(t, _done);
    std::int64_t idle_slack = kInf;
    if (ready == 0) {  // FastForward (Algorithm 4)
      ++_stats.fast_forwards;
      const std::int64_t next = _jobs.next_arrival(t, _done);
      idle_slack = next - t - 1;
      t = next;
      ready = _jobs.ready(t, _done);
    }
    if (_stats.vertices_created > _options.max_vertices) {
      _aborted = true;
      return Outcome{false, 0};
    }
    Key key{_done, ready};
    auto [it, inserted] = _memo.try_emplace(std::move(key));
    if (inserted) _memo_bytes += sizeof(Key) + _done.size() * sizeof(std::int32_t) + 64;
    for (const Entry& e : it->second) {
      if (e.t <= t && t - e.t <= e.sigma && (e.failed || e.t == t) && (_options.merge || e.t == t)) {
        ++_stats.vertices_merged;
        const std::int64_t sigma = e.failed ? e.sigma - (t - e.t) : 0;
        return Outcome{!e.failed, idle_slack < kInf ? idle_slack : sigma};
      }
    }
    if (!it->second.empty()) ++_stats.vertices_split;
    const Outcome child = explore(t);
    if (_aborted) return Outcome{false, 0};
    // `it` may be stale after the recursion rehashed the map; look the key up again.
    _memo[Key{_done, ready}].push_back(Entry{t, child.sigma, !child.success});
    _memo_bytes += sizeof(Entry);
    // A fast-forwarded successor shifted by Δ <= idle_slack idles to the same vertex.
    return Outcome{child.success, idle_slack < kInf ? idle_slack : child.sigma};
  }

  std::int64_t _completed() const {
    std::int64_t sum = 0;
    for (std::int32_t k : _done) sum += k;
    return sum;
  }

  // Reduction 2: a job not yet done whose deadline is <= t can no longer meet it.
  bool pending_miss(std::int64_t t) const {
    for (int i = 0; i < _jobs.n; ++i) {
      const auto k = _done[static_cast<std::size_t>(i)];
      if (k < _jobs.jobs[static_cast<std::size_t>(i)] && _jobs.due(i, k) <= t) return true;
    }
    return false;
  }

  std::vector<std::size_t> urgency_order(std::int64_t t, TaskMask ready,
                                         const std::vector<PbsOracle::Batch>& batches) const {
    int urgent = -1;
    for (int i = 0; i < _jobs.n; ++i) {
      if ((ready & (TaskMask{1} << i)) == 0) continue;
      const auto k = _done[static_cast<std::size_t>(i)];
      if (urgent < 0 || _jobs.due(i, k) < _jobs.due(urgent, _done[static_cast<std::size_t>(urgent)]))
        urgent = i;
    }
    const TaskMask urgent_bit = TaskMask{1} << urgent;
    std::vector<std::size_t> order(batches.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](std::size_t i) {
      const TaskMask set = batches[i].set;
      return std::make_tuple((set & urgent_bit) == 0, t + _jobs.completion(set), -std::popcount(set), i);
    };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    return order;
  }

  PbsOptions _options;
  const PbsJobs& _jobs;
  PbsOracle _oracle;
  std::vector<std::int32_t> _done;
  std::vector<PbsFrame> _path, _best;
  std::unordered_map<Key, std::vector<Entry>, KeyHash> _memo;
  std::size_t _memo_bytes = 0;
  PbsStats _stats;
  bool _aborted = false;
};

}  // namespace

PbsFrame make_frame(std::int64_t start, std::int64_t end, std::span<const int> order,
                    std::span<const std::int32_t> done) {
  PbsFrame frame{Nanos{start}, Nanos{end}, {}};
  for (int i : order) frame.jobs.push_back(PbsJobRef{i, done[static_cast<std::size_t>(i)]});
  return frame;
}

PbsResult gpusched_fast(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PbsResult result = FastSearch(system, jobs, options).run();
  result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gpurt::pbs_detail

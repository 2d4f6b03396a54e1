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
//    and, when σ(v) is passed up to v's parent, never more than next arrival − t − 1 (else the
//    shifted vertex has another ready set; at a lookup the equal key already rules that out,
//    so the memo keeps σ without this cap). A same-key vertex beyond the slack, or earlier than every kept
//    one, is explored: that is Split — the dominated vertex's subtree is built exactly where it differs.
//    Looking the key up in a hash map makes the domination check O(1) expected instead of
//    Algorithm 1's scan over all vertices.
// 5. Order: batches holding the most urgent ready job first, then shorter frames, then larger
//    batches. Any order visits the same graph when nothing is schedulable, so the verdict is
//    unchanged; a good order only finds a schedulable path sooner.
// 6. Explore-all (the earliest-ending table) merges into schedulable vertices too: σ does not
//    depend on success (pruned edges, fast-forwards and end vertices tolerate the shift alike),
//    so every path from the merged vertex (t + Δ) is a path from the kept one with every vertex
//    shifted by at most Δ (Lemma 3.11): it ends no earlier, and the kept vertex's subtree has
//    already offered its earliest end. This is Algorithm 1's graph (it merges regardless of
//    schedulability); only the count of schedulable end vertices depends on the merges.
// 7. Explore-all without whole_graph is branch and bound on the table's end: a frame is not
//    explored when a lower bound on the end of any table through it is no earlier than the best
//    table found. The bound, per task i with jobs left: its remaining frames run one after
//    another, each no shorter than m_i (the shortest frame that can hold a job of i: C alone, its
//    slowed C, or a table entry with i), and the k-th no earlier than that job's arrival: the
//    chain's end from −∞ (precomputed per job count) and t' + (jobs left)·m_i both bound it.
//    Per pair i, j (up to 12 tasks): frames are disjoint in time, and one holding both lasts at
//    least L_ij (their larger slowed C, or a table entry holding both), so their frames take at
//    least min over x of x·L_ij + (r_i − x)·m_i + (r_j − x)·m_j, x <= min(r_i, r_j) shared. The
//    tail (up to 12 tasks; init_tail_bound): the least total length of frames holding up to K
//    jobs of every task (each frame's part costs the shortest eligible frame containing it), from
//    t' for the jobs left and from every late arrival x for the jobs arriving at or after x. A
//    bounded edge tolerates any shift (the bound only grows with t'), like a pruned one, so the
//    slacks and merges above stay sound; since the best only improves, what a merge skips could
//    not have beaten it either.
//
// Costs per vertex (measured with perf on 8-task sets, issue 17): no allocation on the hot path —
// the memo is looked up through a view of the job counts (heterogeneous lookup), each ready
// set's batches are listed once with their completion times, pre-sorted, and the path keeps
// (start, end, batch) and builds frames only for a new best table.
#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <span>
#include <unordered_map>

#include "gpurt/analysis/pbs_internal.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt::pbs_detail {

namespace {

constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
// Memory allowed per vertex of PbsOptions::max_vertices (a memo entry takes about 100 bytes).
constexpr std::size_t kBytesPerVertex = 256;
// Reduction 7's pair bound costs O(n^2) per frame: only for this many tasks or fewer.
constexpr int kPairBoundTasks = 12;
// The tail bound's table: (K+1)^n count vectors, each trying up to 2^n parts; K <= kTailJobs
// (on the 8-task benchmark sets K = 3 cut the capped runs from 14 with K = 2 to 12).
constexpr std::int64_t kTailWork = 20'000'000;
constexpr std::int64_t kTailJobs = 3;

// Memo key: the job count per task followed by the ready mask (as one more int32).
using KeyView = std::span<const std::int32_t>;
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(KeyView k) const noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (std::int32_t d : k) h = (h ^ static_cast<std::uint32_t>(d)) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  std::size_t operator()(const std::vector<std::int32_t>& k) const noexcept { return (*this)(KeyView(k)); }
};
struct KeyEq {
  using is_transparent = void;
  bool operator()(KeyView a, KeyView b) const noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
};

struct Entry {
  std::int64_t t = 0;
  std::int64_t sigma = 0;
  bool failed = true;
};

// One eligible set of a ready mask with its completion time (frame length) and witness order.
struct Edge {
  TaskMask set = 0;
  std::int64_t length = 0;
  const std::vector<int>* order = nullptr;
};

struct Stopped {};  // thrown by the budget check; caught in run()

class FastSearch {
 public:
  FastSearch(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options)
      : _options(options),
        _jobs(jobs),
        _oracle(system),
        _key(static_cast<std::size_t>(_jobs.n) + 1, 0),
        _start(std::chrono::steady_clock::now()) {
    if (_jobs.total_jobs > 20'000) {
      throw Error("GPUSched: " + std::to_string(_jobs.total_jobs) +
                  " jobs in the hyperperiod, more than the 20000 it searches (it recurses once per frame); "
                  "the EDF baselines (edf-serial, edf-parallel) take more");
    }
    _check = [this](std::size_t walk_bytes) { budget(walk_bytes); };
    if (_options.explore_all && !_options.whole_graph) init_bound();
  }

  PbsResult run() {
    PbsResult result;
    result.policy = PbsPolicy::gpusched;
    result.hyperperiod = Nanos{_jobs.h};
    _stats.vertices_created = 1;  // v0: t = 0, exe = ∅, ready = A(0, 0) (every task's job 0)
    try {
      explore(0);
    } catch (const Stopped&) {
      _aborted = true;
    }
    result.schedulable = _stats.schedulable_end_vertices > 0;
    // Stopped early: the verdict is proven only by a schedule found, and with explore-all the
    // table is then not proven the earliest.
    result.complete = !_aborted || (result.schedulable && !_options.explore_all);
    if (!result.complete) result.stopped_by = _stopped_by;
    result.table = std::move(_best);
    _stats.oracle_queries = _oracle.queries();
    _stats.oracle_simulations = _oracle.simulations();
    _stats.peak_memory_bytes = _memo_bytes + _oracle.memory_bytes() + _walk_peak;
    result.stats = _stats;
    return result;
  }

 private:
  struct Outcome {
    bool success = false;
    std::int64_t sigma = 0;
  };
  struct Step {
    std::int64_t start = 0, end = 0;
    const std::vector<int>* order = nullptr;
  };

  std::span<std::int32_t> done() { return {_key.data(), static_cast<std::size_t>(_jobs.n)}; }

  // Reduction 7: m_i and, per task and job count c, the end of its remaining chain from −∞.
  void init_bound() {
    _bounded = true;
    const auto n = static_cast<std::size_t>(_jobs.n);
    _min_frame.assign(n, kInf);
    _chain_end.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
      const TaskMask bit = TaskMask{1} << i;
      std::int64_t m = std::min(_jobs.completion(bit), _jobs.wcet_slowed[i]);
      for (const auto& [set, c] : _jobs.batch_table())
        if ((set & bit) != 0) m = std::min(m, c);
      _min_frame[i] = std::max<std::int64_t>(m, 0);
      // The chain of the jobs c .. count-1 from time f is f -> max(f, a_k) + m applied in
      // order; such maps compose to f -> max(f + (count - c)·m, B_c), so B_c (its end from −∞)
      // follows backwards: B_c = max(a_c + m + (count - c - 1)·m, B_{c+1}).
      const std::int32_t count = _jobs.jobs[i];
      auto& chain = _chain_end[i];
      chain.assign(static_cast<std::size_t>(count) + 1, -kInf);
      for (std::int32_t c = count - 1; c >= 0; --c) {
        const std::int64_t after = static_cast<std::int64_t>(count - c) * m;
        chain[static_cast<std::size_t>(c)] =
            std::max(_jobs.arrival(static_cast<int>(i), c) + after, chain[static_cast<std::size_t>(c) + 1]);
      }
    }
    // Pairs: a frame holding jobs of both i and j lasts at least L_ij (their larger slowed C, or
    // a table entry holding both); frames are disjoint in time.
    if (_jobs.n > kPairBoundTasks) return;
    _pair_frame.assign(n * n, kInf);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const TaskMask both = (TaskMask{1} << i) | (TaskMask{1} << j);
        std::int64_t l = std::max(_jobs.wcet_slowed[i], _jobs.wcet_slowed[j]);
        for (const auto& [set, c] : _jobs.batch_table())
          if ((set & both) == both) l = std::min(l, c);
        _pair_frame[i * n + j] = std::max(l, std::max(_min_frame[i], _min_frame[j]));
      }
    }
    init_tail_bound();
  }

  // Reduction 7, the tail: cover(c) is the least total length of frames that together hold c_i
  // jobs of every task i (c_i <= K; a frame holds at most one job of a task, and its part γ
  // costs the shortest eligible frame containing γ, so no frame needs to lie inside the jobs
  // counted). Frames are disjoint in time, so from a frame ending at t: end >= t +
  // cover(min(jobs of i left, K)); and for an instant x at or after which every task has at most
  // K arrivals, the frames holding the jobs arriving at or after x start at or after x: end >=
  // x + cover(those counts). Jobs arriving at or after t cannot be done by t, so the second
  // depends on x alone and its suffix maximum over x is precomputed. cover follows from
  // cover(c) = min over parts γ holding c's lowest counted task of frame(γ) + cover(c − γ)
  // (some frame holds that task's job); K <= kTailJobs, the most jobs of a task, and
  // (K+1)^n·2^n <= kTailWork.
  void init_tail_bound() {
    const auto n = static_cast<std::size_t>(_jobs.n);
    if (n == 0) return;  // a system built in code with no task: nothing to bound
    const TaskMask full = (TaskMask{1} << n) - 1;
    std::vector<std::int64_t> frame(static_cast<std::size_t>(full) + 1, kInf);  // then: over supersets
    for (const PbsOracle::Batch& b : _oracle.eligible_subsets(full)) frame[b.set] = _jobs.completion(b.set);
    for (std::size_t i = 0; i < n; ++i) {
      for (TaskMask g = full; g != 0; --g)
        if ((g & (TaskMask{1} << i)) == 0) frame[g] = std::min(frame[g], frame[g | (TaskMask{1} << i)]);
    }
    const auto states_for = [n](std::int64_t k) {
      std::int64_t states = 1;
      for (std::size_t i = 0; i < n; ++i) states *= k + 1;
      return states;
    };
    const std::int64_t most = *std::max_element(_jobs.jobs.begin(), _jobs.jobs.end());
    _tail_k = 1;
    while (_tail_k < std::min(most, kTailJobs) &&
           states_for(_tail_k + 1) * (std::int64_t{1} << n) <= kTailWork)
      ++_tail_k;
    const std::int64_t radix = _tail_k + 1;
    _tail_digit.assign(n, 1);
    for (std::size_t i = 1; i < n; ++i) _tail_digit[i] = _tail_digit[i - 1] * radix;
    std::vector<std::int64_t> offset(static_cast<std::size_t>(full) + 1, 0);  // Σ digit over a part
    for (TaskMask g = 1; g <= full; ++g)
      offset[g] = offset[g & (g - 1)] + _tail_digit[static_cast<std::size_t>(std::countr_zero(g))];
    _cover.assign(static_cast<std::size_t>(states_for(_tail_k)), 0);
    for (std::int64_t c = 1; c < static_cast<std::int64_t>(_cover.size()); ++c) {
      TaskMask support = 0;
      for (std::size_t i = 0; i < n; ++i)
        if ((c / _tail_digit[i]) % radix != 0) support |= TaskMask{1} << i;
      const TaskMask low = support & (~support + 1), rest = support ^ low;
      std::int64_t best = kInf;
      for (TaskMask sub = rest;; sub = (sub - 1) & rest) {  // every part holding the lowest task
        const TaskMask part = sub | low;
        const std::int64_t below = _cover[static_cast<std::size_t>(c - offset[part])];
        if (frame[part] < kInf && below < kInf) best = std::min(best, frame[part] + below);
        if (sub == 0) break;
      }
      _cover[static_cast<std::size_t>(c)] = best;
    }
    // Instants x: the arrivals after which no task has more than K.
    std::int64_t after = -kInf;
    std::vector<std::pair<std::int64_t, std::size_t>> late;  // (arrival, task) of the last K jobs
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t count = _jobs.jobs[i];
      if (count > _tail_k) after = std::max(after, _jobs.arrival(static_cast<int>(i), count - _tail_k - 1));
      for (std::int32_t k = std::max<std::int32_t>(0, count - static_cast<std::int32_t>(_tail_k)); k < count;
           ++k)
        late.emplace_back(_jobs.arrival(static_cast<int>(i), k), i);
    }
    std::sort(late.begin(), late.end());
    _tail_at.clear();
    _tail_end.clear();
    std::int64_t code = 0, best = -kInf;
    for (std::size_t k = late.size(); k-- > 0;) {
      if (late[k].first <= after) break;
      code += _tail_digit[late[k].second];
      if (k > 0 && late[k - 1].first == late[k].first) continue;  // one entry per instant
      const std::int64_t cover = _cover[static_cast<std::size_t>(code)];
      if (cover < kInf) best = std::max(best, late[k].first + cover);
      _tail_at.push_back(late[k].first);
      _tail_end.push_back(best);
    }
    std::reverse(_tail_at.begin(), _tail_at.end());
    std::reverse(_tail_end.begin(), _tail_end.end());
  }

  // The tail bound of init_tail_bound() for a frame ending at t (counts already advanced).
  std::int64_t tail_bound(std::int64_t t) const {
    std::int64_t code = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(_jobs.n); ++i)
      code += std::min<std::int64_t>(_jobs.jobs[i] - _key[i], _tail_k) * _tail_digit[i];
    const std::int64_t cover = _cover[static_cast<std::size_t>(code)];
    std::int64_t bound = cover < kInf ? t + cover : t;
    const auto it = std::lower_bound(_tail_at.begin(), _tail_at.end(), t);
    if (it != _tail_at.end())
      bound = std::max(bound, _tail_end[static_cast<std::size_t>(it - _tail_at.begin())]);
    return bound;
  }

  // Reduction 7: no table through the frame ending at `t` (counts already advanced) ends before
  // this.
  std::int64_t end_bound(std::int64_t t) const {
    std::int64_t bound = t;
    for (int i = 0; i < _jobs.n; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      const std::int32_t c = _key[ui];
      const std::int32_t left = _jobs.jobs[ui] - c;
      if (left <= 0) continue;
      bound = std::max({bound, _chain_end[ui][static_cast<std::size_t>(c)], t + left * _min_frame[ui]});
    }
    if (_pair_frame.empty()) return bound;
    bound = std::max(bound, tail_bound(t));
    // Pairs: with x frames holding both (x <= the fewer jobs left), the frames of i and j last
    // at least x·L_ij + (r_i − x)·m_i + (r_j − x)·m_j, linear in x: least at x = 0 or the most.
    const auto n = static_cast<std::size_t>(_jobs.n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t ri = _jobs.jobs[i] - _key[i];
      if (ri <= 0) continue;
      for (std::size_t j = i + 1; j < n; ++j) {
        const std::int64_t rj = _jobs.jobs[j] - _key[j];
        if (rj <= 0) continue;
        const std::int64_t apart = ri * _min_frame[i] + rj * _min_frame[j];
        const std::int64_t x = std::min(ri, rj);
        const std::int64_t together = apart + x * (_pair_frame[i * n + j] - _min_frame[i] - _min_frame[j]);
        bound = std::max(bound, t + std::min(apart, together));
      }
    }
    return bound;
  }

  bool found_enough() const { return _stats.schedulable_end_vertices > 0 && !_options.explore_all; }

  // Throws Stopped when a budget is spent: the vertex cap, memory (kBytesPerVertex per allowed
  // vertex, counting the memo, the batch lists and an oracle walk in progress), wall time.
  void budget(std::size_t walk_bytes = 0) {
    _walk_peak = std::max(_walk_peak, walk_bytes);
    if (_stats.vertices_created > _options.max_vertices ||
        _memo_bytes + _oracle.memory_bytes() + walk_bytes > kBytesPerVertex * _options.max_vertices) {
      _stopped_by = "max-vertices";
      throw Stopped{};
    }
    if (_options.max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - _start).count() >
            _options.max_seconds) {
      _stopped_by = "max-seconds";
      throw Stopped{};
    }
  }

  // The eligible sets of `ready`, shorter frames first, then larger sets (cached per mask).
  const std::vector<Edge>& edges(TaskMask ready) {
    auto it = _edges.find(ready);
    if (it != _edges.end()) return it->second;
    std::vector<Edge> out;
    for (const PbsOracle::Batch& b : _oracle.eligible_subsets(ready, _check)) {
      out.push_back(Edge{b.set, _jobs.completion(b.set), &b.order});
    }
    std::stable_sort(out.begin(), out.end(), [](const Edge& a, const Edge& b) {
      return a.length != b.length ? a.length < b.length : std::popcount(a.set) > std::popcount(b.set);
    });
    _memo_bytes += 64 + out.size() * sizeof(Edge);
    return _edges.emplace(ready, std::move(out)).first->second;
  }

  // The task whose ready job is due first (lowest index on ties).
  int most_urgent(TaskMask ready) {
    int urgent = -1;
    std::int64_t due = kInf;
    for (TaskMask m = ready; m != 0; m &= m - 1) {
      const int i = std::countr_zero(m);
      const std::int64_t d = _jobs.due(i, _key[static_cast<std::size_t>(i)]);
      if (d < due) {
        due = d;
        urgent = i;
      }
    }
    return urgent;
  }

  // Explores the vertex (t, done()); its ready set is not empty.
  Outcome explore(std::int64_t t) {
    const TaskMask ready = _jobs.ready(t, done());
    Outcome out{false, kInf};  // σ of the edges; visit() caps it at the next arrival
    const std::vector<Edge>& list = edges(ready);
    const TaskMask urgent = TaskMask{1} << most_urgent(ready);
    // Reduction 5: the sets holding the most urgent job first, each group in list order.
    for (int pass = 0; pass < 2 && !found_enough(); ++pass) {
      for (const Edge& edge : list) {
        if (((edge.set & urgent) != 0) != (pass == 0)) continue;
        ++_stats.edges;
        const std::int64_t end = t + edge.length;
        bool miss = false;
        for (TaskMask m = edge.set; m != 0; m &= m - 1) {
          auto& k = _key[static_cast<std::size_t>(std::countr_zero(m))];
          miss = miss || end > _jobs.due(std::countr_zero(m), k);
          ++k;
        }
        _finished += std::popcount(edge.set);
        if (!miss && _bounded && !_best.empty() && end_bound(end) >= _best.back().end.count()) {
          ++_stats.vertices_bounded;  // tolerates any shift too: the bound grows with the end
        } else if (!miss && !pending_miss(end)) {
          ++_stats.vertices_created;
          _path.push_back(Step{t, end, edge.order});
          const Outcome child = visit(end);
          _path.pop_back();
          out.success = out.success || child.success;
          out.sigma = std::min(out.sigma, child.sigma);
        } else {
          ++_stats.vertices_pruned;  // contributes ∞ to the slack: later is no better
        }
        _finished -= std::popcount(edge.set);
        for (TaskMask m = edge.set; m != 0; m &= m - 1) --_key[static_cast<std::size_t>(std::countr_zero(m))];
        if (found_enough()) break;
      }
    }
    return out;
  }

  // The successor vertex at `t` (already counted and on the path): end, fast-forward, merge
  // or explore. Returns whether a schedulable path goes through it and the slack it tolerates.
  Outcome visit(std::int64_t t) {
    if (_finished == _jobs.total_jobs) {
      ++_stats.schedulable_end_vertices;
      if (_best.empty() || _path.back().end < _best.back().end.count()) record_best();
      return Outcome{true, kInf};
    }
    TaskMask ready = _jobs.ready(t, done());
    std::int64_t idle_slack = kInf;
    if (ready == 0) {  // FastForward (Algorithm 4)
      ++_stats.fast_forwards;
      const std::int64_t next = _jobs.next_arrival(t, done());
      idle_slack = next - t - 1;
      t = next;
      ready = _jobs.ready(t, done());
    }
    budget();
    _key.back() = static_cast<std::int32_t>(ready);
    std::size_t slot = 0;
    if (auto it = _memo.find(KeyView(_key)); it != _memo.end()) {
      slot = it->second;
      for (const Entry& e : _lists[slot]) {
        if (e.t <= t && t - e.t <= e.sigma && (_options.merge == PbsMerge::dominated || e.t == t)) {
          ++_stats.vertices_merged;
          return Outcome{!e.failed && e.t == t,
                         idle_slack < kInf ? idle_slack : std::min(e.sigma - (t - e.t), arrival_cap(t))};
        }
      }
      ++_stats.vertices_split;
    } else {
      slot = _lists.size();
      _memo.emplace(_key, slot);
      _lists.emplace_back();
      _memo_bytes += 96 + _key.size() * sizeof(std::int32_t);
    }
    const Outcome child = explore(t);
    _lists[slot].push_back(Entry{t, child.sigma, !child.success});
    _memo_bytes += sizeof(Entry);
    // A fast-forwarded successor shifted by Δ <= idle_slack idles to the same vertex.
    return Outcome{child.success, idle_slack < kInf ? idle_slack : std::min(child.sigma, arrival_cap(t))};
  }

  // The largest shift of the vertex (t, done()) that keeps its ready set: up to the instant
  // before the next arrival (Lemma 3.10's A(t, t + Δ) = ∅).
  std::int64_t arrival_cap(std::int64_t t) const {
    const std::int64_t arrival =
        _jobs.next_arrival(t, std::span<const std::int32_t>(_key.data(), done_size()));
    return arrival < 0 ? kInf : arrival - t - 1;
  }
  std::size_t done_size() const { return static_cast<std::size_t>(_jobs.n); }

  // The path as a table: replays the job counts from zero.
  void record_best() {
    std::vector<std::int32_t> counts(static_cast<std::size_t>(_jobs.n), 0);
    _best.clear();
    for (const Step& s : _path) {
      _best.push_back(make_frame(s.start, s.end, *s.order, counts));
      for (int i : *s.order) ++counts[static_cast<std::size_t>(i)];
    }
  }

  // Reduction 2: a job not yet done whose deadline is <= t can no longer meet it.
  bool pending_miss(std::int64_t t) const {
    for (int i = 0; i < _jobs.n; ++i) {
      const auto k = _key[static_cast<std::size_t>(i)];
      if (k < _jobs.jobs[static_cast<std::size_t>(i)] && _jobs.due(i, k) <= t) return true;
    }
    return false;
  }

  PbsOptions _options;
  const PbsJobs& _jobs;
  PbsOracle _oracle;
  std::vector<std::int32_t> _key;  // done() counts, then the ready mask at lookups
  std::int64_t _finished = 0;      // sum of the counts
  std::vector<Step> _path;
  std::vector<PbsFrame> _best;
  std::unordered_map<std::vector<std::int32_t>, std::size_t, KeyHash, KeyEq> _memo;
  std::vector<std::vector<Entry>> _lists;  // per memo slot, the explored vertices of that key
  std::unordered_map<TaskMask, std::vector<Edge>> _edges;
  std::function<void(std::size_t)> _check;
  std::chrono::steady_clock::time_point _start;
  std::size_t _memo_bytes = 0;
  std::size_t _walk_peak = 0;  // bytes of the largest eligibility walk seen by budget()
  PbsStats _stats;
  bool _bounded = false;                              // reduction 7 is on
  std::vector<std::int64_t> _min_frame;               // m_i
  std::vector<std::vector<std::int64_t>> _chain_end;  // per task, per job count
  std::vector<std::int64_t> _pair_frame;              // L_ij at [i·n + j], i < j (small n only)
  std::int64_t _tail_k = 1;                           // jobs per task the tail bound counts
  std::vector<std::int64_t> _tail_digit;              // (K+1)^i
  std::vector<std::int64_t> _cover;                   // cover(c) per count vector (small n only)
  std::vector<std::int64_t> _tail_at, _tail_end;      // tail instants x, max over x' >= x of x' + cover
  bool _aborted = false;
  std::string _stopped_by;
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
  PbsResult result = options.merge == PbsMerge::none ? gpusched_tree(system, jobs, options)
                                                     : FastSearch(system, jobs, options).run();
  result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gpurt::pbs_detail

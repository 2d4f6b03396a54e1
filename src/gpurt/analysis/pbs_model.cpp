#include "gpurt/analysis/pbs_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_set>

#include "gpurt/core/error.hpp"
#include "gpurt/model/occupancy.hpp"

namespace gpurt {

namespace {

// Places every block of `task` on `device` after the blocks already there, continuing the
// round-robin pointer `next`; false when a block finds no SM (the job would not start at once).
bool place_job(const PbsTask& task, Device& device, int& next) {
  RoundRobinPlacement placement;
  if (next > 0) placement.placed(next - 1);  // restore the pointer: placed(s) sets it to s + 1
  const BlockShape shape = task.shape();
  for (int b = 0; b < task.blocks; ++b) {
    const int sm = placement.place(device, shape, {});
    if (sm < 0) return false;
    device.occupy(sm, shape);
    placement.placed(sm);
    next = sm + 1;
  }
  return true;
}

// Everything that decides what a further job can do on the device: the per-SM resources in
// use and the round-robin pointer (plus the set, so equal states of different sets stay apart).
std::string fingerprint(TaskMask set, const Device& device, int next) {
  std::string key;
  auto put = [&key](std::int64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(set);
  put(next % device.sms());
  for (int sm = 0; sm < device.sms(); ++sm) {
    put(device.resident_threads(sm));
    put(device.resident_blocks(sm));
    put(device.resident_registers(sm));
    put(device.resident_shared_memory(sm));
  }
  return key;
}

}  // namespace

PbsOracle::PbsOracle(const PbsSystem& system) : _system(&system) {
  std::vector<std::tuple<int, int, int, std::int64_t>> shapes;
  for (const PbsTask& t : system.tasks) {
    const auto shape = std::make_tuple(t.blocks, t.threads, t.registers, t.shared_memory);
    std::size_t id = 0;
    while (id < shapes.size() && shapes[id] != shape) ++id;
    if (id == shapes.size()) shapes.push_back(shape);
    _shape_id.push_back(static_cast<char>(id));
  }
}

bool PbsOracle::eligible(std::span<const int> order) {
  ++_queries;
  std::string key;
  for (int i : order) key.push_back(_shape_id[static_cast<std::size_t>(i)]);
  if (auto it = _cache.find(key); it != _cache.end()) return it->second;
  ++_simulations;
  Device device(_system->platform);
  int next = 0;
  bool ok = true;
  for (int i : order) {
    if (!place_job(_system->tasks[static_cast<std::size_t>(i)], device, next)) {
      ok = false;
      break;
    }
  }
  _bytes += key.size() + 64;
  _cache.emplace(std::move(key), ok);
  return ok;
}

const std::vector<PbsOracle::Batch>& PbsOracle::eligible_subsets(
    TaskMask ready, const std::function<void(std::size_t)>& check) {
  ++_queries;
  if (auto it = _subsets.find(ready); it != _subsets.end()) return it->second;
  std::vector<Batch> out;
  std::unordered_set<TaskMask> found;
  std::unordered_set<std::string> seen;
  std::vector<int> order;
  std::size_t bytes = 0;  // held by `seen` and `out` (approximate)
  // Depth-first over submission orders. Exactness of the two cuts:
  // - a prefix that is not eligible has no eligible extension: the allocator places the
  //   prefix's blocks exactly as it would alone (later jobs are submitted after them), so a
  //   block that found no SM still finds none;
  // - two prefixes leaving the same set, the same per-SM resources in use and the same
  //   round-robin pointer are indistinguishable to every later job, so only the first is
  //   extended.
  auto extend = [&](auto& self, TaskMask set, const Device& device, int next) -> void {
    for (int i = 0; i < static_cast<int>(_system->tasks.size()); ++i) {
      const TaskMask bit = TaskMask{1} << i;
      if ((ready & bit) == 0 || (set & bit) != 0) continue;
      Device after = device;
      int after_next = next;
      if ((++_simulations & 255) == 0 && check) check(bytes);
      if (!place_job(_system->tasks[static_cast<std::size_t>(i)], after, after_next)) continue;
      const TaskMask grown = set | bit;
      std::string key = fingerprint(grown, after, after_next);
      const std::size_t key_bytes = key.size() + 64;
      if (!seen.insert(std::move(key)).second) continue;
      bytes += key_bytes;
      order.push_back(i);
      if (found.insert(grown).second) {
        out.push_back(Batch{grown, order});
        bytes += sizeof(Batch) + order.size() * sizeof(int) + 32;
      }
      self(self, grown, after, after_next);
      order.pop_back();
    }
  };
  extend(extend, 0, Device(_system->platform), 0);
  _bytes += 64;
  for (const Batch& b : out) _bytes += sizeof(Batch) + b.order.size() * sizeof(int);
  return _subsets.emplace(ready, std::move(out)).first->second;
}

PbsJobs::PbsJobs(const PbsSystem& system) : n(static_cast<int>(system.tasks.size())) {
  h = pbs_hyperperiod(system).count();
  for (const PbsTask& t : system.tasks) {
    period.push_back(t.period.count());
    deadline.push_back(t.deadline.count());
    wcet.push_back(t.wcet.count());
    // ceil(C · s) in whole nanoseconds, s the decimal the file writes: 5 · 1.4 is 7, and
    // 5 · 1.0000001 is 6 (snapping products within 1e-6 ns of an integer made it 5).
    const auto whole = scale_up(t.wcet, t.slowdown);
    if (!whole) throw Error("task " + t.name + ": wcet × slowdown overflows 64-bit nanoseconds");
    wcet_slowed.push_back(whole->count());
    jobs.push_back(static_cast<std::int32_t>(h / t.period.count()));
    total_jobs += jobs.back();
    auto& arrivals = _arrivals.emplace_back();
    auto& dues = _dues.emplace_back();
    for (std::int64_t k = 0; k < jobs.back(); ++k) {
      arrivals.push_back(k * t.period.count());
      dues.push_back(k * t.period.count() + t.deadline.count());
    }
  }
  for (const PbsBatchTime& b : system.batches) {
    TaskMask set = 0;
    for (int i : b.tasks) set |= TaskMask{1} << i;
    _table.emplace(set, b.completion.count());
  }
}

PbsJobs::PbsJobs(const PbsSystem& system, std::vector<std::vector<std::int64_t>> arrivals,
                 std::vector<std::vector<std::int64_t>> dues)
    : PbsJobs(system) {
  if (arrivals.size() != static_cast<std::size_t>(n) || dues.size() != arrivals.size()) {
    throw Error("PBS job list: one list of arrivals and of deadlines per task");
  }
  h = 0;
  total_jobs = 0;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (dues[i].size() != arrivals[i].size())
      throw Error("PBS job list: arrivals and deadlines differ in length");
    for (std::size_t k = 0; k < arrivals[i].size(); ++k) {
      if (dues[i][k] <= arrivals[i][k] || (k + 1 < arrivals[i].size() && dues[i][k] > arrivals[i][k + 1])) {
        throw Error("PBS job list: need arrival < deadline <= next arrival of the task");
      }
      h = std::max(h, dues[i][k]);
    }
    jobs[i] = static_cast<std::int32_t>(arrivals[i].size());
    total_jobs += jobs[i];
  }
  _arrivals = std::move(arrivals);
  _dues = std::move(dues);
}

TaskMask PbsJobs::ready(std::int64_t t, std::span<const std::int32_t> done) const {
  TaskMask mask = 0;
  for (int i = 0; i < n; ++i) {
    const auto k = done[static_cast<std::size_t>(i)];
    if (k < jobs[static_cast<std::size_t>(i)] && arrival(i, k) <= t) mask |= TaskMask{1} << i;
  }
  return mask;
}

std::int64_t PbsJobs::next_arrival(std::int64_t t, std::span<const std::int32_t> done) const {
  std::int64_t best = -1;
  for (int i = 0; i < n; ++i) {
    const auto k = done[static_cast<std::size_t>(i)];
    if (k >= jobs[static_cast<std::size_t>(i)]) continue;
    const std::int64_t a = arrival(i, k);
    if (a > t && (best < 0 || a < best)) best = a;
  }
  return best;
}

std::int64_t PbsJobs::completion(TaskMask set) const {
  if (auto it = _table.find(set); it != _table.end()) return it->second;
  const bool alone = (set & (set - 1)) == 0;
  std::int64_t latest = 0;
  for (int i = 0; i < n; ++i) {
    if ((set & (TaskMask{1} << i)) == 0) continue;
    const std::int64_t c =
        alone ? wcet[static_cast<std::size_t>(i)] : wcet_slowed[static_cast<std::size_t>(i)];
    latest = std::max(latest, c);
  }
  return latest;
}

}  // namespace gpurt

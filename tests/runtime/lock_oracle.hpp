// Test helpers for the locks: unique lock names and a replay oracle that checks a recorded run
// against the SMLP protocol, event by event, in the order the lock itself assigned (epochs).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/runtime/lock.hpp"

namespace gpurt::test {

/// A lock name no other test (or concurrent ctest process) uses.
inline std::string unique_name(const std::string& what) {
  static std::atomic<int> counter{0};
  return fmt::format("gpurt-test-{}-{}-{}", what, getpid(), counter.fetch_add(1));
}

/// One grant or release as a participant saw it. Plain data: lives in MAP_SHARED memory too.
struct LockEvent {
  std::uint64_t epoch;
  std::uint64_t ticket;  // grants: when the request arrived
  std::int32_t release;  // 0 grant, 1 release
  std::int32_t who;
  std::int32_t priority;
  std::int32_t free_before;
  std::int32_t granted;
  std::int32_t pad;
  gpurt_mask mask;
  gpurt_mask allowed;  // bit s-1 set when size s was allowed
};

/// Replays `events` on a model of an H-unit lock. Returns "" when every grant went to the head
/// of the queue (FIFO or priority-then-FIFO), saw `free_before` free units, got exactly
/// smlp_grant(allowed, free) units, the lowest-numbered free ones, and every release returned
/// units its participant held. Otherwise the first violation.
inline std::string replay(std::vector<LockEvent> events, int units, bool priority_policy) {
  struct Arrival {
    std::uint64_t ticket;
    std::int32_t priority;
  };
  std::vector<LockEvent> order = events;
  std::sort(order.begin(), order.end(),
            [](const LockEvent& a, const LockEvent& b) { return a.epoch < b.epoch; });
  std::vector<std::pair<std::uint64_t, Arrival>> arrivals;  // sorted by ticket
  for (const LockEvent& e : events) {
    if (e.release == 0) arrivals.push_back({e.ticket, Arrival{e.ticket, e.priority}});
  }
  std::sort(arrivals.begin(), arrivals.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<std::uint64_t, Arrival> waiting;
  std::vector<int> owner(static_cast<std::size_t>(units), -1);
  std::size_t next_arrival = 0;
  std::uint64_t last_epoch = 0;
  for (const LockEvent& e : order) {
    if (e.epoch == last_epoch) return fmt::format("epoch {} used twice", e.epoch);
    last_epoch = e.epoch;
    while (next_arrival < arrivals.size() && arrivals[next_arrival].first < e.epoch) {
      waiting.emplace(arrivals[next_arrival].first, arrivals[next_arrival].second);
      ++next_arrival;
    }
    const std::vector<int> mask = mask_units(e.mask);
    if (e.release != 0) {
      for (int u : mask) {
        if (owner[static_cast<std::size_t>(u)] != e.who) {
          return fmt::format("epoch {}: {} released unit {} it does not hold", e.epoch, e.who, u);
        }
        owner[static_cast<std::size_t>(u)] = -1;
      }
      continue;
    }
    // Grant: this request must be the head of the queue.
    if (waiting.empty() || waiting.count(e.ticket) == 0) {
      return fmt::format("epoch {}: grant of ticket {} that is not waiting", e.epoch, e.ticket);
    }
    auto head = waiting.begin();
    if (priority_policy) {
      for (auto it = waiting.begin(); it != waiting.end(); ++it) {
        if (it->second.priority > head->second.priority) head = it;
      }
    }
    if (head->first != e.ticket) {
      return fmt::format("epoch {}: granted ticket {} (priority {}) before ticket {} (priority {})", e.epoch,
                         e.ticket, e.priority, head->first, head->second.priority);
    }
    waiting.erase(head);
    std::vector<int> free_units;
    for (int u = 0; u < units; ++u) {
      if (owner[static_cast<std::size_t>(u)] < 0) free_units.push_back(u);
    }
    const int free = static_cast<int>(free_units.size());
    if (free != e.free_before) {
      return fmt::format("epoch {}: lock saw {} free units, model has {}", e.epoch, e.free_before, free);
    }
    std::vector<int> allowed;
    for (int s = 1; s <= units; ++s) {
      if (mask_test(e.allowed, s - 1)) allowed.push_back(s);
    }
    const int expect = smlp_grant(allowed, free);
    if (expect < 1 || e.granted != expect || static_cast<int>(mask.size()) != expect) {
      return fmt::format("epoch {}: granted {} ({} in mask) with {} free; smlp_grant says {}", e.epoch,
                         e.granted, mask.size(), free, expect);
    }
    if (!std::equal(mask.begin(), mask.end(), free_units.begin())) {
      return fmt::format("epoch {}: granted units are not the lowest-numbered free ones", e.epoch);
    }
    for (int u : mask) owner[static_cast<std::size_t>(u)] = e.who;
  }
  if (next_arrival != arrivals.size() || !waiting.empty()) return "requests left waiting at the end";
  return "";
}

}  // namespace gpurt::test

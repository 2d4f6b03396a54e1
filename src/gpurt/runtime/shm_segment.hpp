// The layout of a lock's shared-memory segment, shared by shm_open.cpp (create/attach) and
// shm_lock.cpp (the protocol). Internal: not part of the API. One layout, no #ifdef variants.
#pragma once

#include <atomic>
#include <cstdint>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/shm_lock.hpp"
#include "gpurt/runtime/shm_mutex.hpp"

namespace gpurt::runtime {

constexpr std::uint64_t kMagic = 0x6770'7572'746c'6b31;  // "gpurtlk1"
// Layout version. 3: no last_check_ns (per handle now); 4: ShmMutex records its owner's pid.
constexpr std::uint32_t kVersion = 4;

struct Owner {
  std::int32_t pid;  // 0: the unit is free
  std::int32_t tid;
  std::uint64_t start;
};

// One queued request; its own cache line, since its futex word is polled while spinning.
struct alignas(64) Waiter {
  std::atomic<std::uint32_t> wake;  // set to 1 (under the mutex) to make the waiter re-check
  std::uint32_t in_use;
  std::int32_t pid;
  std::int32_t tid;
  std::uint64_t start;
  std::uint64_t ticket;
  std::int32_t priority;
};

struct ShmLock::Segment {
  std::atomic<std::uint64_t> ready;  // kMagic once the creator has initialised everything
  std::uint32_t version;
  std::uint32_t kind;
  std::atomic<std::int32_t> units;  // written only under the mutex (resize); read anywhere
  std::int32_t policy;
  ShmMutex mutex;  // guards everything below; detects an owner that died holding it
  std::uint64_t epoch;
  std::uint64_t free_bits[4];
  std::int32_t free_count;
  std::atomic<std::int32_t> waiting;  // in-use Waiter slots; written under the mutex
  Owner owner[GPURT_MAX_UNITS];
  Waiter waiters[GPURT_MAX_WAITERS];
};

/// The unit count of `s`, clamped to 1..GPURT_MAX_UNITS. open() refuses a segment whose count
/// is out of range, but any process that may open the segment may also write it later: every
/// loop over units uses this, so a corrupted count can never index outside the owner table.
inline int unit_count(const ShmLock::Segment& s) noexcept {
  const int u = s.units.load(std::memory_order_relaxed);
  return u < 1 ? 1 : (u > GPURT_MAX_UNITS ? GPURT_MAX_UNITS : u);
}

}  // namespace gpurt::runtime

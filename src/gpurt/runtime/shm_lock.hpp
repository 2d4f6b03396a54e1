// The one implementation behind the SMLP and k-exclusion locks, in C and C++: a queue of
// requests and an owner table for up to 256 units in POSIX shared memory, guarded by a
// ShmMutex (shm_mutex.hpp: robust to an owner's death, no pthread robust list). Every waiter sleeps on its
// own futex word, so a release wakes exactly the request that is next, not all of them.
//
// Errors are returned as negative errno values; the sentence explaining one is kept per thread
// (last_error()). Nothing here prints, exits or throws.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "gpurt/runtime/gpurt.h"

namespace gpurt::runtime {

struct Identity;

enum class LockKind : std::uint32_t { smlp = 1, kx = 2 };

/// What happened at a grant, for callers that check the protocol (tests, tracing). Tickets and
/// epochs come from one counter per lock that every arrival, grant and release advances under
/// the lock's mutex, so sorting events of all threads and processes by it gives the true order.
struct GrantInfo {
  std::uint64_t ticket = 0;  ///< epoch at which the request joined the queue
  std::uint64_t epoch = 0;   ///< epoch of the grant
  int free_before = 0;       ///< free units just before the grant (the argument to smlp_grant)
};

/// Sets the calling thread's error message and returns -err.
int fail(int err, std::string message) noexcept;
/// The calling thread's last error message.
const char* last_error() noexcept;
/// Sets the permission bits of segments created from now on (gpurt_set_create_mode); returns
/// the previous mode or -EINVAL.
int set_create_mode(int mode) noexcept;

class ShmLock {
 public:
  /// Opens or creates lock `name` of `kind`. units == 0 with attach_any attaches to an existing
  /// lock whatever its size. Returns 0 or -errno; on success *out owns a new ShmLock.
  static int open(LockKind kind, const char* name, int units, int policy, bool attach_any,
                  ShmLock** out) noexcept;
  static int unlink(LockKind kind, const char* name) noexcept;

  ShmLock(const ShmLock&) = delete;
  ShmLock& operator=(const ShmLock&) = delete;
  ~ShmLock();

  /// See gpurt_smlp_lock. `info` may be null.
  int lock(std::span<const int> allowed, int priority, gpurt_mask* out, GrantInfo* info) noexcept;
  /// See gpurt_smlp_unlock. `epoch`, when not null, receives the epoch of the release.
  int unlock(const gpurt_mask& held, std::uint64_t* epoch) noexcept;
  /// Sets the unit count (k-exclusion resize): -EBUSY unless every unit is free and no one waits.
  int resize(int units) noexcept;

  int units() const noexcept;
  int policy() const noexcept;
  /// Requests waiting right now (a snapshot; for benchmarks and tests).
  int waiting() const noexcept;

  struct Segment;

 private:
  ShmLock(Segment* segment, LockKind kind) : _seg(segment), _kind(kind) {}
  int enter(const Identity& me) noexcept;  // locks the mutex; repairs if its owner died
  void leave() noexcept;
  // lock() with sizes that are not yet a sorted set (cold), and with a queue to join (slow).
  [[gnu::cold, gnu::noinline]] int lock_sorting(std::span<const int> allowed, int priority, gpurt_mask* out,
                                                GrantInfo* info) noexcept;
  [[gnu::noinline]] int queue_and_wait(std::span<const int> allowed, int priority, std::uint64_t ticket,
                                       const Identity& me, gpurt_mask* out, GrantInfo* info) noexcept;
  void wait_for_wake(std::atomic<std::uint32_t>* word, bool* timed_out) noexcept;

  Segment* _seg;
  LockKind _kind;
  std::atomic<int> _spin{64};        // adaptive spin budget (iterations) before sleeping
  std::uint64_t _last_check_ns = 0;  // this handle's last look for dead holders (under the mutex)
};

}  // namespace gpurt::runtime

// The C handles (gpurt.h): a ShmLock behind an opaque type.
struct gpurt_smlp {
  std::unique_ptr<gpurt::runtime::ShmLock> impl;
};
struct gpurt_kx {
  std::unique_ptr<gpurt::runtime::ShmLock> impl;
};

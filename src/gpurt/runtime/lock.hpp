// C++ API of the SMLP and k-exclusion locks: RAII handles and guards over the same shared-memory
// implementation as the C API in gpurt.h (semantics are documented there, once).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/shm_lock.hpp"

namespace gpurt {

/// A lock operation failed. code() is the errno value (EINVAL, EPERM, ENAMETOOLONG, ...).
class LockError : public Error {
 public:
  LockError(int code, const std::string& message) : Error(message), _code(code) {}
  int code() const noexcept { return _code; }

 private:
  int _code;
};

/// Units in a mask, ascending.
std::vector<int> mask_units(const gpurt_mask& mask);
/// Number of units in a mask.
int mask_count(const gpurt_mask& mask) noexcept;
/// Whether unit u is in the mask.
bool mask_test(const gpurt_mask& mask, int unit) noexcept;
/// The mask holding exactly `units` (each 0..255).
gpurt_mask mask_of(std::span<const int> units);

class SmlpLock;

/// Holds units of an SmlpLock; returns them when destroyed. Movable, not copyable; must be
/// destroyed (or release()d) by the thread that locked.
class SmlpGuard {
 public:
  SmlpGuard() = default;
  SmlpGuard(SmlpGuard&& other) noexcept;
  SmlpGuard& operator=(SmlpGuard&& other) noexcept;
  SmlpGuard(const SmlpGuard&) = delete;
  SmlpGuard& operator=(const SmlpGuard&) = delete;
  ~SmlpGuard();

  const gpurt_mask& mask() const noexcept { return _mask; }
  int units() const noexcept { return mask_count(_mask); }
  const runtime::GrantInfo& info() const noexcept { return _info; }
  bool owns() const noexcept { return _lock != nullptr; }
  /// Returns the units now; throws LockError if the lock refuses.
  void release();

 private:
  friend class SmlpLock;
  SmlpLock* _lock = nullptr;
  gpurt_mask _mask{};
  runtime::GrantInfo _info{};
};

/// An SMLP lock handle (gpurt_smlp_open). Thread-safe; share one per process.
class SmlpLock {
 public:
  enum class Policy { fifo = GPURT_POLICY_FIFO, priority = GPURT_POLICY_PRIORITY };

  /// Opens or creates lock `name` over `units` units. Throws LockError.
  SmlpLock(const std::string& name, int units, Policy policy = Policy::fifo);
  /// Not movable (like std::mutex): a guard points at its handle. Hold it by unique_ptr to move it.
  SmlpLock(SmlpLock&&) = delete;
  SmlpLock& operator=(SmlpLock&&) = delete;
  /// Removes the name; false if it did not exist. Throws LockError on other failures.
  static bool unlink(const std::string& name);

  /// Blocks until granted; see gpurt_smlp_lock. Throws LockError.
  SmlpGuard lock(std::span<const int> allowed_sizes, int priority = 0);
  /// The same without a guard: returns the units granted, fills `out` and, when given, `info`.
  int lock(std::span<const int> allowed_sizes, int priority, gpurt_mask& out,
           runtime::GrantInfo* info = nullptr);
  /// See gpurt_smlp_unlock; returns the release's epoch. Throws LockError.
  std::uint64_t unlock(const gpurt_mask& held);

  int units() const noexcept { return _impl->units(); }
  /// Requests waiting now (a snapshot).
  int waiting() const noexcept { return _impl->waiting(); }

 private:
  std::unique_ptr<runtime::ShmLock> _impl;
};

/// A k-exclusion lock handle (gpurt_kx_open). Thread-safe.
class KxLock {
 public:
  /// Opens or creates lock `name` with k slots (k == 0: attach to an existing one). Throws.
  KxLock(const std::string& name, int k);
  /// Not movable (like std::mutex): a Slot points at its handle.
  KxLock(KxLock&&) = delete;
  KxLock& operator=(KxLock&&) = delete;
  static bool unlink(const std::string& name);

  /// A held slot, released when destroyed.
  class Slot {
   public:
    Slot(KxLock& lock, int index) : _lock(&lock), _index(index) {}
    Slot(Slot&& other) noexcept : _lock(other._lock), _index(other._index) { other._lock = nullptr; }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot();
    int index() const noexcept { return _index; }

   private:
    KxLock* _lock;
    int _index;
  };

  /// Blocks (FIFO) for a slot. Throws LockError.
  Slot acquire();
  int acquire_index();
  void release(int slot);
  /// See gpurt_kx_resize. Throws LockError (EBUSY while a slot is held).
  void resize(int k);
  int slots() const noexcept { return _impl->units(); }

  /// Priority boosting of holders (Dissertation §6.1: the k-exclusion lock runs a holder under
  /// SCHED_FIFO so that a preempted holder cannot delay the others): from now on, a thread of
  /// this handle that gets a slot runs under SCHED_FIFO at `priority` (1..99) until it releases
  /// the slot, then returns to its previous policy and priority; 0 turns boosting off (the
  /// default). Checks at once that the process may do it: throws LockError(EPERM) naming
  /// CAP_SYS_NICE / RLIMIT_RTPRIO when it may not, (EINVAL) for a priority outside 0..99.
  /// Per handle; call it before threads use the handle. Boosting applies to the acquiring
  /// thread only, and only in the process that set it.
  void set_holder_priority(int priority);
  int holder_priority() const noexcept { return _boost; }
  /// Requests waiting now (a snapshot).
  int waiting() const noexcept { return _impl->waiting(); }

 private:
  std::unique_ptr<runtime::ShmLock> _impl;
  int _boost = 0;
};

}  // namespace gpurt

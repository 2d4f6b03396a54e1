// The mutex inside a shared-memory lock: one 32-bit futex word that holds the owner's pid, so a
// waiter can tell when the owner process died in the critical section -- the guarantee of a
// robust pthread mutex (EOWNERDEAD), without the cost of glibc's robust list, which alone makes
// a process-shared robust pthread mutex about 1.6x slower than a plain one (docs/runtime.md).
// Zero-filled memory is an unlocked ShmMutex.
#pragma once

#include <atomic>
#include <cstdint>

#include "gpurt/runtime/sys.hpp"

namespace gpurt::runtime {

class ShmMutex {
 public:
  enum class Acquired { ok, owner_died };

  /// Blocks until locked: a short spin, then FUTEX_WAIT in slices of kCheckPeriod, after each of
  /// which the owner's pid is checked. Returns owner_died when the lock was taken over from a
  /// dead process: the caller must repair what that process may have left half-done.
  /// `me` is the caller (self()).
  Acquired lock(const Identity& me) noexcept {
    std::uint32_t c = 0;
    if (_word.compare_exchange_strong(c, static_cast<std::uint32_t>(me.pid), std::memory_order_acquire,
                                      std::memory_order_relaxed)) [[likely]] {
      record_owner(me);
      return Acquired::ok;
    }
    return lock_slow(me);
  }
  void unlock() noexcept {
    // A recorded pid then belongs to an owner that died holding the mutex, never to one that
    // left it: a newer process with that pid, between its CAS and its record, is not mistaken
    // for a reused pid of a dead owner.
    _owner_pid.store(0, std::memory_order_relaxed);
    if ((_word.exchange(0, std::memory_order_release) & kContended) != 0) [[unlikely]]
      wake_one();
  }

 private:
  static constexpr std::uint32_t kContended = 0x8000'0000U;  // someone may sleep on the word (pids < 2^22)

  friend struct ShmMutexTestAccess;  // tests/runtime: sets the fields to states a holder passes through

  // After taking the word: the start time first, then the pid (release), so that whoever reads
  // _owner_pid equal to the word's pid (acquire) also reads that owner's start time.
  void record_owner(const Identity& me) noexcept {
    _owner_start.store(me.start, std::memory_order_relaxed);
    _owner_pid.store(static_cast<std::uint32_t>(me.pid), std::memory_order_release);
  }
  Acquired lock_slow(const Identity& me) noexcept;
  void wake_one() noexcept;
  bool owner_dead(std::uint32_t word) noexcept;

  std::atomic<std::uint32_t> _word;          // 0: free; else owner pid | kContended
  std::atomic<std::uint64_t> _owner_start;   // the owner's process start time (pid reuse check)
  std::atomic<std::uint32_t> _owner_pid;     // whose start _owner_start is (the word's pid once recorded)
  std::atomic<std::uint32_t> _suspect_word;  // pid reuse: the same owner word seen twice
  std::atomic<std::uint64_t> _suspect_start;
};

}  // namespace gpurt::runtime

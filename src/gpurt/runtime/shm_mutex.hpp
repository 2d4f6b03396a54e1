// The mutex inside a shared-memory lock: one 32-bit futex word that holds the owner's pid, so a
// waiter can tell when the owner process died in the critical section -- the guarantee of a
// robust pthread mutex (EOWNERDEAD), without the cost of glibc's robust list, which alone makes
// a process-shared robust pthread mutex about 4x slower than a plain one (docs/runtime.md).
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
  Acquired lock(const Identity& me) noexcept;
  void unlock() noexcept;

 private:
  bool owner_dead(std::uint32_t word) noexcept;

  std::atomic<std::uint32_t> _word;          // 0: free; else owner pid | kContended
  std::atomic<std::uint64_t> _owner_start;   // the owner's process start time (pid reuse check)
  std::atomic<std::uint32_t> _suspect_word;  // pid reuse: the same owner word seen twice
  std::atomic<std::uint64_t> _suspect_start;
};

}  // namespace gpurt::runtime

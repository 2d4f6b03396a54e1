#include "gpurt/runtime/shm_mutex.hpp"

#include <chrono>

#include "gpurt/runtime/sys.hpp"

namespace gpurt::runtime {

namespace {
constexpr int kSpin = 64;
constexpr auto kCheckPeriod = std::chrono::milliseconds(10);
}  // namespace

ShmMutex::Acquired ShmMutex::lock_slow(const Identity& me) noexcept {
  const auto mine = static_cast<std::uint32_t>(me.pid);
  std::uint32_t c = 0;
  for (int i = 0; i < kSpin; ++i) {
    cpu_relax();
    c = 0;
    if (_word.load(std::memory_order_relaxed) == 0 &&
        _word.compare_exchange_strong(c, mine, std::memory_order_acquire, std::memory_order_relaxed)) {
      record_owner(me);
      return Acquired::ok;
    }
  }
  // The owner is checked every kCheckPeriod of waiting, on the clock: a wait that a signal
  // interrupts (EINTR, e.g. a 1 kHz timer) must not restart the period, or a dead owner would
  // never be noticed by a thread that gets signals more often than that.
  auto next_check = std::chrono::steady_clock::now() + kCheckPeriod;
  for (;;) {
    c = _word.load(std::memory_order_relaxed);
    if (c == 0) {
      // Others may be asleep: keep the flag so our unlock wakes one of them.
      if (_word.compare_exchange_strong(c, mine | kContended, std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
        record_owner(me);
        return Acquired::ok;
      }
      continue;
    }
    if ((c & kContended) == 0) {
      if (!_word.compare_exchange_strong(c, c | kContended, std::memory_order_relaxed)) continue;
      c |= kContended;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now < next_check) {
      futex_wait(&_word, c, next_check - now);
      continue;
    }
    next_check = now + kCheckPeriod;
    if (owner_dead(c) && _word.compare_exchange_strong(c, mine | kContended, std::memory_order_acquire,
                                                       std::memory_order_relaxed)) {
      record_owner(me);
      return Acquired::owner_died;
    }
  }
}

void ShmMutex::wake_one() noexcept { futex_wake(&_word, 1); }

bool ShmMutex::owner_dead(std::uint32_t word) noexcept {
  const auto pid = static_cast<std::int32_t>(word & ~kContended);
  if (!process_alive(pid, 0)) return true;  // no such process, or a zombie
  // The pid runs. Until the owner has recorded itself (record_owner, two stores after its CAS)
  // the start time is a previous owner's: a holder preempted between its CAS and those stores
  // must not look dead, however long it waits for a CPU (unlock clears the record, so a stale
  // one is a dead owner's). If it died right there and its pid was reused before anyone
  // checked, the mutex is taken over once that other process exits.
  if (_owner_pid.load(std::memory_order_acquire) != static_cast<std::uint32_t>(pid)) return false;
  const std::uint64_t start = _owner_start.load(std::memory_order_relaxed);
  if (process_alive(pid, start)) return false;
  // The pid runs as a newer process than the one that recorded its start: a reused pid, the
  // owner having died holding the mutex (unlock clears the record). Only the same (word, start)
  // over a whole period means dead.
  if (word == _suspect_word.load(std::memory_order_relaxed) &&
      start == _suspect_start.load(std::memory_order_relaxed)) {
    return true;
  }
  _suspect_word.store(word, std::memory_order_relaxed);
  _suspect_start.store(start, std::memory_order_relaxed);
  return false;
}

}  // namespace gpurt::runtime

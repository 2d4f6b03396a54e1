// Small Linux helpers for the shared-memory locks: who the caller is, whether a process is still
// alive, and futex waits and wakes on words in memory shared between processes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace gpurt::runtime {

/// The calling thread as the locks record it. `start` is the process start time (clock ticks
/// since boot, /proc/PID/stat field 22), so a recycled pid is not taken for the old process.
struct Identity {
  std::int32_t pid = 0;
  std::int32_t tid = 0;
  std::uint64_t start = 0;
};

namespace detail {
// Per-thread cache of self(). __thread (not thread_local) so that no TLS init wrapper runs on
// each access, and initial-exec so that a use is one %fs-relative load, not __tls_get_addr:
// the uncontended lock path reads it twice per lock+unlock (docs/runtime.md).
struct SelfCache {
  Identity id;
  std::uint32_t generation;  // g_fork_generation when id was filled; 0: never
};
extern __thread SelfCache t_self __attribute__((tls_model("initial-exec")));
extern std::atomic<std::uint32_t> g_fork_generation;  // bumped in every child after fork()
const Identity& refresh_self() noexcept;
}  // namespace detail

/// The calling thread's identity; cached per thread and refreshed after fork().
inline const Identity& self() noexcept {
  if (detail::t_self.generation == detail::g_fork_generation.load(std::memory_order_relaxed)) [[likely]] {
    return detail::t_self.id;
  }
  return detail::refresh_self();
}

/// Whether process `pid`, started at `start`, still runs. Dead: no such process (ESRCH), a pid now
/// used by a newer process, or a zombie with no running thread (it can never unlock again).
/// Alive: another user's process (EPERM, hidepid), a /proc entry that cannot be read, and a
/// process whose main thread exited while others run (its leader shows Z).
bool process_alive(std::int32_t pid, std::uint64_t start) noexcept;

/// Sleeps while `*word == expected`, at most `timeout`. Returns false on timeout, true otherwise
/// (woken, value changed, or interrupted). Works across processes (no FUTEX_PRIVATE_FLAG).
bool futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                std::chrono::nanoseconds timeout) noexcept;

/// Wakes up to `count` threads sleeping on `word`.
void futex_wake(std::atomic<std::uint32_t>* word, int count) noexcept;

/// One CPU relaxation hint for spin loops.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace gpurt::runtime

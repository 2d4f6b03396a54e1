// Barriers for the runner's workers (Dissertation §3.3.2 step 5): the examiner uses a
// spin barrier in shared memory; gpurt blocks instead (std::barrier for threads, a
// process-shared mutex + condition variable for processes) since its workers sleep until
// release anyway. Both allow a worker to leave (arrive_and_drop), as an instance that has run
// its iterations leaves the simulator's barrier (sim/host.cpp).
#pragma once

#include <barrier>
#include <functional>
#include <memory>

namespace gpurt::detail {

class Barrier {
 public:
  virtual ~Barrier() = default;
  /// Waits until every remaining participant has arrived; the last one runs the completion.
  virtual void arrive_and_wait() = 0;
  /// Leaves for good (counts as an arrival for the current phase).
  virtual void arrive_and_drop() = 0;
  /// Wakes every waiter and makes every later arrive_and_wait throw Error(kBrokenBarrier):
  /// the runner calls it when a worker process died and will never arrive. Threads cannot
  /// die alone, so the thread barrier ignores it.
  virtual void break_all() noexcept {}
};

/// what() of the Error a broken barrier throws.
inline constexpr const char* kBrokenBarrier = "another worker process died; the run was stopped";

/// Completion: a plain function pointer and argument, so it survives fork() unchanged.
struct BarrierCompletion {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  void operator()() const noexcept {
    if (fn) fn(arg);
  }
};

/// For worker threads.
std::unique_ptr<Barrier> make_thread_barrier(int participants, BarrierCompletion completion = {});

/// For forked workers: lives in a MAP_SHARED anonymous mapping created before the fork.
std::unique_ptr<Barrier> make_process_barrier(int participants, BarrierCompletion completion = {});

}  // namespace gpurt::detail

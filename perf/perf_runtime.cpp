// Lock costs next to their baselines, measured in the same run (figures in docs/runtime.md):
//   uncontended: gpurt_smlp_lock + gpurt_smlp_unlock   vs  pthread_mutex_lock + unlock
//   hand-off:    unlock in process A -> lock returns in process B (B asleep in the kernel)
//                vs  futex word set + FUTEX_WAKE in A -> FUTEX_WAIT returns in B, same protocol.
// Hand-off iterations use manual time: the latency from A's timestamp just before the release to
// B's timestamp just after it returns (CLOCK_MONOTONIC, shared by both processes). Before each
// release A waits 200 us after B has queued, so B's adaptive spin is over and B sleeps in the
// kernel in both cases. p50/p99 are reported as counters.
#include <benchmark/benchmark.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/lock.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void futex_wait(std::atomic<std::uint32_t>* w, std::uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAIT, expected, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>* w) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

std::string bench_name(const char* what) {
  return std::string("gpurt-perf-") + what + "-" + std::to_string(getpid());
}

void BM_SmlpUncontended(benchmark::State& state) {
  const std::string name = bench_name("unc");
  const int units = static_cast<int>(state.range(0));
  gpurt_smlp* lock = gpurt_smlp_open(name.c_str(), units, GPURT_POLICY_FIFO);
  const int sizes[] = {1, 2, 4, 8};
  const int n = units >= 8 ? 4 : 1;
  gpurt_mask m{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(gpurt_smlp_lock(lock, sizes, n, 0, &m));
    gpurt_smlp_unlock(lock, &m);
  }
  gpurt_smlp_close(lock);
  gpurt_smlp_unlink(name.c_str());
}
BENCHMARK(BM_SmlpUncontended)->Arg(1)->Arg(66);

void BM_PthreadMutex(benchmark::State& state) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  for (auto _ : state) {
    pthread_mutex_lock(&mutex);
    benchmark::ClobberMemory();
    pthread_mutex_unlock(&mutex);
  }
}
BENCHMARK(BM_PthreadMutex);

// The same, but process-shared and robust like the mutex inside a gpurt lock.
void BM_PthreadRobustSharedMutex(benchmark::State& state) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_t mutex;
  pthread_mutex_init(&mutex, &attr);
  for (auto _ : state) {
    pthread_mutex_lock(&mutex);
    benchmark::ClobberMemory();
    pthread_mutex_unlock(&mutex);
  }
  pthread_mutex_destroy(&mutex);
}
BENCHMARK(BM_PthreadRobustSharedMutex);

// Shared between the benchmark process (A) and its forked partner (B).
struct Board {
  std::atomic<std::uint32_t> round;  // A -> B: start round r
  std::atomic<std::uint32_t> armed;  // B -> A: about to block in round r
  std::atomic<std::uint32_t> done;   // B -> A: finished round r
  std::atomic<std::uint32_t> word;   // the bare futex (futex benchmark)
  std::atomic<std::int64_t> t_return;
  std::atomic<std::uint32_t> quit;
};

Board* new_board() {
  void* p = mmap(nullptr, sizeof(Board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return new (p) Board{};
}

void wait_value(std::atomic<std::uint32_t>& w, std::uint32_t value) {
  for (std::uint32_t v = w.load(); v != value; v = w.load()) futex_wait(&w, v);
}

void report(benchmark::State& state, std::vector<double>& lat) {
  std::sort(lat.begin(), lat.end());
  if (lat.empty()) return;
  state.counters["p50_us"] = lat[lat.size() / 2] / 1e3;
  state.counters["p99_us"] = lat[lat.size() * 99 / 100] / 1e3;
}

// B's side of the hand-off benchmarks; `blocker` blocks until A releases.
template <typename Blocker, typename After>
[[noreturn]] void partner(Board* b, Blocker blocker, After after) {
  for (std::uint32_t r = 1;; ++r) {
    wait_value(b->round, r);
    if (b->quit.load() != 0) _exit(0);
    b->armed.store(r);
    futex_wake(&b->armed);
    blocker();
    b->t_return.store(now_ns());
    after();
    b->done.store(r);
    futex_wake(&b->done);
  }
}

void BM_SmlpHandoffBetweenProcesses(benchmark::State& state) {
  const std::string name = bench_name("handoff");
  constexpr int kUnits = 8;
  gpurt::SmlpLock lock(name, kUnits);
  Board* b = new_board();
  const pid_t pid = fork();
  if (pid == 0) {
    gpurt_smlp* own = gpurt_smlp_open(name.c_str(), kUnits, GPURT_POLICY_FIFO);
    const int one[] = {1};
    gpurt_mask m{};
    partner(
        b, [&] { gpurt_smlp_lock(own, one, 1, 0, &m); }, [&] { gpurt_smlp_unlock(own, &m); });
  }
  const int all[] = {1, kUnits};
  std::vector<double> lat;
  std::uint32_t r = 0;
  gpurt_mask held{};
  lock.lock(all, 0, held);
  for (auto _ : state) {
    b->round.store(++r);
    futex_wake(&b->round);
    while (lock.waiting() == 0) std::this_thread::yield();        // B has queued ...
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // ... and sleeps in the kernel
    const std::int64_t t0 = now_ns();
    lock.unlock(held);
    wait_value(b->done, r);
    const double ns = static_cast<double>(b->t_return.load() - t0);
    lat.push_back(ns);
    state.SetIterationTime(ns * 1e-9);
    lock.lock(all, 0, held);
  }
  lock.unlock(held);
  b->quit.store(1);
  b->round.store(++r);
  futex_wake(&b->round);
  waitpid(pid, nullptr, 0);
  report(state, lat);
  munmap(b, sizeof(Board));
  gpurt::SmlpLock::unlink(name);
}
BENCHMARK(BM_SmlpHandoffBetweenProcesses)->UseManualTime()->Iterations(2000)->Unit(benchmark::kMicrosecond);

void BM_FutexWakeBetweenProcesses(benchmark::State& state) {
  Board* b = new_board();
  const pid_t pid = fork();
  if (pid == 0) {
    partner(
        b, [&] { wait_value(b->word, 1); }, [&] { b->word.store(0); });
  }
  std::vector<double> lat;
  std::uint32_t r = 0;
  for (auto _ : state) {
    b->round.store(++r);
    futex_wake(&b->round);
    wait_value(b->armed, r);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    const std::int64_t t0 = now_ns();
    b->word.store(1);
    futex_wake(&b->word);
    wait_value(b->done, r);
    const double ns = static_cast<double>(b->t_return.load() - t0);
    lat.push_back(ns);
    state.SetIterationTime(ns * 1e-9);
  }
  b->quit.store(1);
  b->round.store(++r);
  futex_wake(&b->round);
  waitpid(pid, nullptr, 0);
  report(state, lat);
  munmap(b, sizeof(Board));
}
BENCHMARK(BM_FutexWakeBetweenProcesses)->UseManualTime()->Iterations(2000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

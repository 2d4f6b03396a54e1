// Robustness: processes killed with SIGKILL while holding units, while waiting in the queue, and
// at random points of a lock/unlock loop (some inside the lock's critical section, which the
// robust mutex reports as EOWNERDEAD). The survivors must get every unit back, quickly.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/syscall.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpurt/core/rng.hpp"
#include "gpurt/runtime/lock.hpp"
#include "gpurt/runtime/shm_mutex.hpp"
#include "gpurt/runtime/sys.hpp"
#include "lock_oracle.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Forks a child that runs `take` (it takes something of a lock and keeps it), writes a byte to
// `ready_fd` and sleeps forever.
template <class Take>
pid_t spawn_keeper(int ready_fd, Take take) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  try {
    take();
    const char c = 'x';
    if (write(ready_fd, &c, 1) != 1) _exit(4);
    for (;;) pause();
  } catch (...) {
    _exit(3);
  }
}

// A child that opens `name` and holds `sizes` of it (see spawn_keeper).
pid_t spawn_holder(const std::string& name, int units, std::vector<int> sizes, int ready_fd) {
  return spawn_keeper(ready_fd, [&] {
    static std::optional<gpurt::SmlpLock> lock;  // the child's: lives until it is killed
    lock.emplace(name, units);
    gpurt_mask m{};
    lock->lock(sizes, 0, m);
  });
}

void wait_byte(int fd) {
  char c = 0;
  ASSERT_EQ(read(fd, &c, 1), 1);
}

// SIGKILLs `child` and reaps it: its pid is gone when this returns.
void kill_and_reap(pid_t child) {
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe(fd) != 0) throw std::runtime_error("pipe");
  }
  ~Pipe() {
    close(fd[0]);
    close(fd[1]);
  }
};

}  // namespace

TEST(SmlpRobust, KilledHolderUnitsComeBack) {
  alarm(60);  // a hang becomes a failure, not a stuck CI job
  const std::string name = gpurt::test::unique_name("robust");
  gpurt::SmlpLock lock(name, 8);
  Pipe p;
  const pid_t child = spawn_holder(name, 8, {1, 6}, p.fd[1]);
  wait_byte(p.fd[0]);
  const int two[] = {1, 2};
  auto mine = lock.lock(two);  // the 2 units the child left; now none is free
  EXPECT_EQ(mine.units(), 2);
  ASSERT_EQ(kill(child, SIGKILL), 0);  // not reaped yet: a zombie must count as dead
  const auto t0 = Clock::now();
  std::atomic<int> got{0};
  std::thread other([&] {  // waits in the queue until the dead child's 6 units are reclaimed
    const int six[] = {1, 6};
    auto g = lock.lock(six);
    got = g.units();
  });
  other.join();
  EXPECT_EQ(got.load(), 6);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(1));
  mine.release();
  const int all[] = {1, 8};
  EXPECT_EQ(lock.lock(all).units(), 8);
  int status = 0;
  waitpid(child, &status, 0);
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

// A request that finds a unit free never waits, so no waiter's poll would notice the dead holder:
// the grant itself must look, or every later request would get 2 units instead of 8.
TEST(SmlpRobust, KilledHolderUnitsComeBackWithoutAWaiter) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("robust");
  gpurt::SmlpLock lock(name, 8);
  Pipe p;
  const pid_t child = spawn_holder(name, 8, {1, 6}, p.fd[1]);
  wait_byte(p.fd[0]);
  kill_and_reap(child);                                        // reaped: the pid is gone
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // past the check period
  const int all[] = {1, 2, 8};
  auto g = lock.lock(all);
  EXPECT_EQ(g.units(), 8);
  EXPECT_EQ(g.info().free_before, 8);
  EXPECT_EQ(lock.waiting(), 0);
  g.release();
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

// k-exclusion asks for one slot, which a free slot always satisfies: no request waits, so no
// poll reclaims a dead holder's slot, and resize refused (EBUSY, "1 slot(s) held") for good.
TEST(KxRobust, ADeadHoldersSlotDoesNotBlockAResize) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("kxdead");
  gpurt::KxLock lock(name, 2);
  Pipe p;
  const pid_t child = spawn_keeper(p.fd[1], [&] {
    static std::optional<gpurt::KxLock> mine;  // the child's: lives until it is killed
    mine.emplace(name, 0);
    mine->acquire_index();
  });
  wait_byte(p.fd[0]);
  kill_and_reap(child);
  lock.resize(3);  // threw LockError(EBUSY)
  EXPECT_EQ(lock.slots(), 3);
  std::vector<gpurt::KxLock::Slot> held;
  for (int i = 0; i < 3; ++i) held.push_back(lock.acquire());  // every slot free again
  EXPECT_EQ(held[0].index() + held[1].index() + held[2].index(), 0 + 1 + 2);
  held.clear();
  gpurt::KxLock::unlink(name);
  alarm(0);
}

// A zombie holder (killed, not yet reaped) gives its units back to a request that finds some
// free and so never waits: the short-grant check used kill(pid, 0), which a zombie passes, and
// every grant stayed at the 2 free units until the parent reaped it.
TEST(SmlpRobust, AZombieHoldersUnitsComeBackBeforeItIsReaped) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("robust");
  gpurt::SmlpLock lock(name, 8);
  Pipe p;
  const pid_t child = spawn_holder(name, 8, {1, 6}, p.fd[1]);
  wait_byte(p.fd[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);  // dead, not reaped
  std::this_thread::sleep_for(std::chrono::milliseconds(60));                       // past the check period
  const int all[] = {1, 2, 8};
  {
    auto g = lock.lock(all);
    EXPECT_EQ(g.units(), 8);
  }
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

// A queue full of requests whose processes died takes new requests: nothing else reclaims their
// entries once no live waiter polls, and every lock failed with EAGAIN for good.
TEST(SmlpRobust, AQueueFullOfDeadWaitersTakesNewRequests) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("robust");
  gpurt::SmlpLock lock(name, 4);
  const int all[] = {1, 4};
  auto held = lock.lock(all);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      gpurt::SmlpLock own(name, 4);
      std::vector<std::thread> waiters;
      for (int i = 0; i < GPURT_MAX_WAITERS; ++i)
        waiters.emplace_back([&own] {
          gpurt_mask m{};
          const int one[] = {1};
          own.lock(one, 0, m);
        });
      for (;;) pause();
    } catch (...) {
      _exit(3);
    }
  }
  while (lock.waiting() < GPURT_MAX_WAITERS) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  kill_and_reap(child);
  held.release();
  auto g = lock.lock(all);  // threw "256 requests already wait" before
  EXPECT_EQ(g.units(), 4);
  EXPECT_EQ(lock.waiting(), 0);
  g.release();
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

TEST(SmlpRobust, KilledWaiterLeavesTheQueue) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("robust");
  gpurt::SmlpLock lock(name, 4);
  const int all[] = {1, 4};
  auto held = lock.lock(all);
  // A child queues (it blocks, so it never writes to the pipe), then dies at the head.
  Pipe p;
  const pid_t child = spawn_holder(name, 4, {1, 4}, p.fd[1]);
  while (lock.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<int> got{0};
  std::thread behind([&] {
    auto g = lock.lock(all);
    got = g.units();
  });
  while (lock.waiting() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  kill_and_reap(child);
  const auto t0 = Clock::now();
  held.release();  // wakes the dead head; the thread behind must still get the units
  behind.join();
  EXPECT_EQ(got.load(), 4);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(lock.waiting(), 0);
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

TEST(SmlpRobust, RandomKillsDuringLockUnlockLoops) {
  alarm(120);
  const std::string name = gpurt::test::unique_name("robust");
  constexpr int kUnits = 6;
  gpurt::SmlpLock lock(name, kUnits);
  gpurt::Rng rng(77);
  int killed = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<pid_t> kids;
    for (int k = 0; k < 3; ++k) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        try {
          gpurt::SmlpLock own(name, kUnits);
          const int sizes[] = {1, 2, 3};
          for (;;) {
            gpurt_mask m{};
            own.lock(sizes, 0, m);
            own.unlock(m);
          }
        } catch (...) {
          _exit(3);
        }
      }
      kids.push_back(pid);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng.uniform_int(2'000, 20'000)));
    for (pid_t pid : kids) {
      ASSERT_EQ(kill(pid, SIGKILL), 0);
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFSIGNALED(status)) << "a child failed before it was killed: " << status;
      ++killed;
    }
  }
  EXPECT_EQ(killed, 36);
  // Every child is dead: the whole lock must come back, and keep working.
  const int all[] = {1, kUnits};
  const auto t0 = Clock::now();
  for (int i = 0; i < 100; ++i) {
    auto g = lock.lock(all);
    ASSERT_EQ(g.units(), kUnits);
  }
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(lock.waiting(), 0);
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

namespace {

// The state letter of /proc/PID/stat ('?' when it cannot be read).
char state_of(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return '?';
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const char* p = std::strrchr(buf, ')');
  return p != nullptr && p + 2 < buf + n ? p[2] : '?';
}

}  // namespace

// Who counts as dead when reclaiming a holder's units: an exited, unreaped child (a zombie) is;
// a process whose main thread called pthread_exit while another thread runs shows state Z for
// its leader too, but is alive, and its units must not go to a second job.
TEST(ProcessAlive, AZombieIsDeadButAProcessWhoseMainThreadExitedIsAlive) {
  const pid_t zombie = fork();
  if (zombie == 0) _exit(0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(zombie), &info, WEXITED | WNOWAIT), 0);  // exited, not reaped
  EXPECT_EQ(state_of(zombie), 'Z');
  EXPECT_FALSE(gpurt::runtime::process_alive(zombie, 0));
  ASSERT_EQ(waitpid(zombie, nullptr, 0), zombie);

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t threads = fork();
  if (threads == 0) {
    std::thread([] {
      for (;;) pause();
    }).detach();
    const char c = 'x';
    if (write(ready[1], &c, 1) != 1) _exit(4);
    // The main thread alone ends, as pthread_exit does (the raw call: pthread_exit would unwind
    // through the test framework's handlers in this forked copy).
    syscall(SYS_exit, 0);
  }
  wait_byte(ready[0]);
  for (int i = 0; i < 400 && state_of(threads) != 'Z'; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(state_of(threads), 'Z');
  EXPECT_TRUE(gpurt::runtime::process_alive(threads, 0));
  kill(threads, SIGKILL);
  ASSERT_EQ(waitpid(threads, nullptr, 0), threads);
  EXPECT_FALSE(gpurt::runtime::process_alive(threads, 0));
  close(ready[0]);
  close(ready[1]);
}

// The inner mutex of a lock's segment (ShmMutex), put by hand into the states a holder passes
// through: its pid in the word, and its identity recorded (record_owner) or not yet.
namespace gpurt::runtime {
struct ShmMutexTestAccess {
  static void hold(ShmMutex& m, std::uint32_t word, std::uint32_t recorded_pid,
                   std::uint64_t recorded_start) {
    m._owner_start.store(recorded_start);
    m._owner_pid.store(recorded_pid);
    m._word.store(word);
  }
  // A CAS that took the word, before its record_owner.
  static void take_word(ShmMutex& m, std::uint32_t word) { m._word.store(word); }
};
}  // namespace gpurt::runtime

namespace {

using gpurt::runtime::ShmMutex;
using gpurt::runtime::ShmMutexTestAccess;

// A child that sleeps until killed, and its process start time (which it sends through a pipe).
struct Sleeper {
  pid_t pid = -1;
  std::uint64_t start = 0;
  Sleeper() {
    Pipe p;
    pid = fork();
    if (pid == 0) {
      const std::uint64_t mine = gpurt::runtime::self().start;
      if (write(p.fd[1], &mine, sizeof mine) != static_cast<ssize_t>(sizeof mine)) _exit(4);
      for (;;) pause();
    }
    if (pid < 0 || read(p.fd[0], &start, sizeof start) != static_cast<ssize_t>(sizeof start))
      throw std::runtime_error("sleeper child");
  }
  void kill_and_reap() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    pid = -1;
  }
  ~Sleeper() { kill_and_reap(); }
};

// Locks `m` on another thread; `done` turns true when lock() returns, with its result.
struct Locker {
  std::atomic<bool> done{false};
  ShmMutex::Acquired result = ShmMutex::Acquired::ok;
  std::thread thread;
  explicit Locker(ShmMutex& m)
      : thread([this, &m] {
          result = m.lock(gpurt::runtime::self());
          done.store(true);
        }) {}
  bool returns_within(std::chrono::milliseconds limit) {
    const auto until = Clock::now() + limit;
    while (!done.load() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return done.load();
  }
  ~Locker() {
    if (thread.joinable()) thread.join();
  }
};

// `m` as `child` holds it: a waiter must not get it while the child lives (eight check periods),
// and takes it over (owner_died) once the child is gone.
void expect_held_until_the_child_dies(ShmMutex& m, Sleeper& child) {
  Locker locker(m);
  EXPECT_FALSE(locker.returns_within(std::chrono::milliseconds(80)));
  child.kill_and_reap();
  ASSERT_TRUE(locker.returns_within(std::chrono::seconds(5)));
  EXPECT_EQ(locker.result, ShmMutex::Acquired::owner_died);
}

}  // namespace

// A holder whose pid is in the word but who has not yet recorded its start time (it was
// preempted between its CAS and record_owner) is alive: the start time in the segment is a
// previous owner's, and taking over on it would give the mutex to two processes. Once the holder
// is gone, the waiter takes over.
TEST(ShmMutex, AHolderThatHasNotRecordedItselfYetIsNotTakenOver) {
  Sleeper child;
  auto m = std::make_unique<ShmMutex>();
  // The previous owner was another process (pid 1 is never this child); its start is stale.
  ShmMutexTestAccess::hold(*m, static_cast<std::uint32_t>(child.pid), 1, child.start + 1000);
  expect_held_until_the_child_dies(*m, child);
}

// Unlock clears the record: a process that left the mutex is not mistaken, through the record
// it left, for the dead owner of a pid reused by the next holder. X (pid P, start S_X) holds and
// unlocks; a newer process with pid P (the child) takes the word and is preempted before its
// record. Kept, the record (P, S_X) looked like a reused pid, and the child lost the mutex after
// two slices.
TEST(ShmMutex, AnUnlockedOwnersRecordIsNotTakenForTheNextHolders) {
  Sleeper child;
  const auto pid = static_cast<std::uint32_t>(child.pid);
  auto m = std::make_unique<ShmMutex>();
  ShmMutexTestAccess::hold(*m, pid, pid, child.start + 1000);  // X, an earlier process with pid P
  m->unlock();
  ShmMutexTestAccess::take_word(*m, pid);  // the child's CAS, not yet recorded
  expect_held_until_the_child_dies(*m, child);
}

// A recorded holder that runs under its recorded start time is alive; the same pid running with
// another start time is a reused pid, and its holder is dead (taken over while the pid runs).
TEST(ShmMutex, ARecordedHolderIsAliveUntilItsPidRunsAsAnotherProcess) {
  Sleeper child;
  const auto pid = static_cast<std::uint32_t>(child.pid);
  const std::uint64_t start = child.start;
  {
    auto m = std::make_unique<ShmMutex>();
    ShmMutexTestAccess::hold(*m, pid, pid, start);
    Locker locker(*m);
    EXPECT_FALSE(locker.returns_within(std::chrono::milliseconds(80)));
    m->unlock();  // as the holder would
    EXPECT_TRUE(locker.returns_within(std::chrono::seconds(5)));
    EXPECT_EQ(locker.result, ShmMutex::Acquired::ok);
  }
  {
    auto m = std::make_unique<ShmMutex>();
    ShmMutexTestAccess::hold(*m, pid, pid, start + 1000);  // recorded by an earlier process with this pid
    Locker locker(*m);
    const bool taken_over = locker.returns_within(std::chrono::seconds(5));
    EXPECT_TRUE(taken_over);
    if (taken_over) {
      EXPECT_EQ(locker.result, ShmMutex::Acquired::owner_died);
    } else {
      m->unlock();  // so that the locker's thread ends and joins
    }
  }
}

// The owner is checked every period of waiting on the clock: a waiter interrupted by signals
// more often than the period (EINTR restarted the 10 ms wait) still takes over from a dead owner.
TEST(ShmMutex, ADeadOwnerIsTakenOverUnderFrequentSignals) {
  struct sigaction action {};
  action.sa_handler = [](int) {};
  action.sa_flags = SA_RESTART;
  struct sigaction previous {};
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  Sleeper child;
  const auto pid = static_cast<std::uint32_t>(child.pid);
  const std::uint64_t start = child.start;
  child.kill_and_reap();
  auto m = std::make_unique<ShmMutex>();
  ShmMutexTestAccess::hold(*m, pid, pid, start);
  Locker locker(*m);
  const auto until = Clock::now() + std::chrono::seconds(2);
  while (!locker.done.load() && Clock::now() < until) {  // a signal every 2 ms
    pthread_kill(locker.thread.native_handle(), SIGUSR1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(locker.done.load()) << "still waiting after 2 s of signals every 2 ms";
  if (!locker.returns_within(std::chrono::seconds(5))) m->unlock();
  EXPECT_EQ(locker.result, ShmMutex::Acquired::owner_died);
  sigaction(SIGUSR1, &previous, nullptr);
}

// A record under this process's own pid but another start time is an earlier process that had
// the pid (reused since it died): dead, so this process does not wait behind it for ever.
TEST(ProcessAlive, OurOwnPidUnderAnotherStartTimeIsAnEarlierProcess) {
  const gpurt::runtime::Identity& me = gpurt::runtime::self();
  ASSERT_NE(me.start, 0u);
  EXPECT_TRUE(gpurt::runtime::process_alive(me.pid, 0));
  EXPECT_TRUE(gpurt::runtime::process_alive(me.pid, me.start));
  EXPECT_FALSE(gpurt::runtime::process_alive(me.pid, me.start + 1000));
  auto m = std::make_unique<ShmMutex>();
  const auto pid = static_cast<std::uint32_t>(me.pid);
  ShmMutexTestAccess::hold(*m, pid, pid, me.start + 1000);
  Locker locker(*m);
  const bool taken_over = locker.returns_within(std::chrono::seconds(5));
  EXPECT_TRUE(taken_over);
  if (!taken_over) m->unlock();
  EXPECT_EQ(locker.result, ShmMutex::Acquired::owner_died);
}

// Lock calls are no cancellation points: a thread cancelled while it waits for units (its poll
// reads /proc, whose open is one) goes on waiting and gets its units when the holder dies; the
// cancel stays pending for its next cancellation point (here none: it turns cancellation off and
// returns, so the test does not unwind a thread, which ASan's thread teardown mistakes for a
// stack-use-after-scope). Acting on the cancel inside the lock unwound through noexcept code:
// std::terminate, and the whole process aborted.
TEST(SmlpRobust, ACancelledWaiterDoesNotAbortTheProcess) {
  alarm(60);
  const std::string name = gpurt::test::unique_name("cancel");
  gpurt::SmlpLock lock(name, 4);
  Pipe p;
  const pid_t child = spawn_holder(name, 4, {1, 4}, p.fd[1]);
  wait_byte(p.fd[0]);
  struct Waiter {
    gpurt::SmlpLock* lock;
    std::atomic<int> units{0};
  } waiter{&lock};
  pthread_t thread{};
  ASSERT_EQ(pthread_create(
                &thread, nullptr,
                [](void* arg) -> void* {
                  auto* w = static_cast<Waiter*>(arg);
                  const int sizes[] = {1, 4};
                  {
                    auto g = w->lock->lock(sizes);
                    w->units = g.units();
                  }
                  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);  // the cancel stays pending
                  return w;
                },
                &waiter),
            0);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // three polls of the waiter
  ASSERT_EQ(pthread_cancel(thread), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(waiter.units.load(), 0);  // still waiting, not cancelled inside the lock
  kill_and_reap(child);
  void* result = nullptr;
  ASSERT_EQ(pthread_join(thread, &result), 0);
  EXPECT_EQ(result, &waiter);  // returned from the lock: not cancelled inside it
  EXPECT_EQ(waiter.units.load(), 4);
  gpurt::SmlpLock::unlink(name);
  alarm(0);
}

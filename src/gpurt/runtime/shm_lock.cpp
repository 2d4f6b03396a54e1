#include "gpurt/runtime/shm_lock.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/runtime/shm_mutex.hpp"
#include "gpurt/runtime/shm_segment.hpp"
#include "gpurt/runtime/sys.hpp"

namespace gpurt::runtime {

namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);  // dead-owner check period while waiting
constexpr int kSpinMin = 16;
constexpr int kSpinMax = 2048;

using Segment = ShmLock::Segment;

bool before(const Segment& s, const Waiter& a, const Waiter& b) {
  if (s.policy == GPURT_POLICY_PRIORITY && a.priority != b.priority) return a.priority > b.priority;
  return a.ticket < b.ticket;
}

// The request at the head of the queue, or -1.
int head(const Segment& s) {
  int best = -1;
  int seen = 0;
  const int waiting = s.waiting.load(std::memory_order_relaxed);
  for (int i = 0; i < GPURT_MAX_WAITERS && seen < waiting; ++i) {
    if (s.waiters[i].in_use == 0) continue;
    ++seen;
    if (best < 0 || before(s, s.waiters[i], s.waiters[best])) best = i;
  }
  return best;
}

// Marks the head as woken when a unit is free; returns its futex word for a wake after unlocking.
std::atomic<std::uint32_t>* mark_head(Segment& s) {
  if (s.free_count <= 0 || s.waiting.load(std::memory_order_relaxed) == 0) return nullptr;
  const int h = head(s);
  if (h < 0) return nullptr;
  s.waiters[h].wake.store(1, std::memory_order_release);
  return &s.waiters[h].wake;
}

void check_invariants([[maybe_unused]] const Segment& s) {
#ifndef NDEBUG
  int free = 0;
  for (int u = 0; u < s.units.load(std::memory_order_relaxed); ++u) {
    const bool bit_free = ((s.free_bits[u / 64] >> (u % 64)) & 1U) != 0;
    assert(bit_free == (s.owner[u].pid == 0) && "free bits disagree with the owner table");
    free += bit_free ? 1 : 0;
  }
  assert(free == s.free_count && "free count disagrees with the owner table");
#endif
}

// Rebuilds the free set and the queue from the owner table after dropping dead processes' units
// and requests. Run when a waiter times out and when the mutex's previous owner died in it.
void reclaim(Segment& s) {
  // Units usually come in runs of one owner: remember the last few answers (/proc reads).
  struct Known {
    std::int32_t pid;
    std::uint64_t start;
    bool alive;
  };
  Known known[8] = {};
  int next = 0;
  auto alive = [&](std::int32_t pid, std::uint64_t start) {
    for (const Known& k : known) {
      if (k.pid == pid && k.start == start) return k.alive;
    }
    const bool a = process_alive(pid, start);
    known[next] = Known{pid, start, a};
    next = (next + 1) % 8;
    return a;
  };
  const int units = s.units.load(std::memory_order_relaxed);
  for (int u = 0; u < units; ++u) {
    Owner& o = s.owner[u];
    if (o.pid != 0 && !alive(o.pid, o.start)) o = Owner{};
  }
  int waiting = 0;
  for (Waiter& w : s.waiters) {
    if (w.in_use != 0 && !alive(w.pid, w.start)) w.in_use = 0;
    waiting += w.in_use != 0 ? 1 : 0;
  }
  s.waiting.store(waiting, std::memory_order_relaxed);
  std::memset(s.free_bits, 0, sizeof s.free_bits);
  s.free_count = 0;
  for (int u = 0; u < units; ++u) {
    if (s.owner[u].pid != 0) continue;
    s.free_bits[u / 64] |= std::uint64_t{1} << (u % 64);
    ++s.free_count;
  }
  if (std::atomic<std::uint32_t>* w = mark_head(s)) futex_wake(w, 1);
}

// Grants smlp_grant(allowed, free) of the lowest-numbered free units to `me`.
int grant(Segment& s, std::span<const int> allowed, const Identity& me, gpurt_mask* out, GrantInfo* info) {
  const int free = s.free_count;
  const int n = smlp_grant(allowed, free);
  assert(n >= 1 && n <= free);
  *out = gpurt_mask{};
  int got = 0;
  for (int w = 0; w < 4 && got < n; ++w) {
    std::uint64_t avail = s.free_bits[w];
    while (avail != 0 && got < n) {
      const int b = std::countr_zero(avail);
      avail &= avail - 1;
      const int u = w * 64 + b;
      assert(s.owner[u].pid == 0 && "unit granted twice");
      s.owner[u] = Owner{me.pid, me.tid, me.start};
      out->bits[w] |= std::uint64_t{1} << b;
      ++got;
    }
  }
  for (int w = 0; w < 4; ++w) s.free_bits[w] &= ~out->bits[w];
  s.free_count -= n;
  const std::uint64_t epoch = ++s.epoch;
  if (info != nullptr) {
    info->epoch = epoch;
    info->free_before = free;
  }
  check_invariants(s);
  return n;
}

}  // namespace

int ShmLock::enter(const Identity& me) noexcept {
  if (_seg->mutex.lock(me) == ShmMutex::Acquired::owner_died) {
    // The previous owner died inside a critical section: the owner table is the truth, the
    // rest is rebuilt from it.
    reclaim(*_seg);
  }
  return 0;
}

void ShmLock::leave() noexcept { _seg->mutex.unlock(); }

void ShmLock::wait_for_wake(std::atomic<std::uint32_t>* word, bool* timed_out) noexcept {
  // Short adaptive spin: grows while hand-offs arrive within it, shrinks when they do not.
  const int budget = _spin.load(std::memory_order_relaxed);
  for (int i = 0; i < budget; ++i) {
    if (word->load(std::memory_order_acquire) != 0) {
      _spin.store(std::min(kSpinMax, budget * 2), std::memory_order_relaxed);
      return;
    }
    cpu_relax();
  }
  _spin.store(std::max(kSpinMin, budget / 2), std::memory_order_relaxed);
  const auto deadline = std::chrono::steady_clock::now() + kPoll;
  while (word->load(std::memory_order_acquire) == 0) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) {
      *timed_out = true;
      return;
    }
    futex_wait(word, 0, left);
  }
}

int ShmLock::lock(std::span<const int> allowed_in, int priority, gpurt_mask* out, GrantInfo* info) noexcept {
  if (out == nullptr) return fail(EINVAL, "output mask is NULL");
  // Sizes as a sorted set, checked against H (fixed for SMLP locks; k-exclusion asks for {1}).
  // Insertion into a sorted, duplicate-free array: cheap for the few sizes a request names.
  const int h = units();
  if (allowed_in.empty()) return fail(EINVAL, "allowed sizes are empty");
  int sorted[GPURT_MAX_UNITS];
  int n = 0;
  for (int s : allowed_in) {
    if (s < 1 || s > h) return fail(EINVAL, fmt::format("allowed size {} is outside 1..{} (H)", s, h));
    int i = n;
    while (i > 0 && sorted[i - 1] > s) --i;
    if (i > 0 && sorted[i - 1] == s) continue;  // duplicate
    for (int j = n; j > i; --j) sorted[j] = sorted[j - 1];
    sorted[i] = s;
    ++n;
  }
  if (sorted[0] != 1) {
    return fail(EINVAL,
                "allowed sizes must contain 1: a request is granted when one unit is free (FFT/SMLP §III-A)");
  }
  const std::span<const int> allowed(sorted, static_cast<std::size_t>(n));
  const Identity& me = self();
  if (int r = enter(me); r < 0) return r;
  Segment& s = *_seg;
  const std::uint64_t ticket = ++s.epoch;
  if (info != nullptr) info->ticket = ticket;
  if (s.waiting.load(std::memory_order_relaxed) == 0 && s.free_count > 0) {
    const int granted = grant(s, allowed, me, out, info);
    leave();
    return granted;
  }
  int slot = -1;
  for (int i = 0; i < GPURT_MAX_WAITERS; ++i) {
    if (s.waiters[i].in_use == 0) {
      slot = i;
      break;
    }
  }
  if (slot < 0) {
    leave();
    return fail(EAGAIN,
                fmt::format("{} requests already wait; at most {}", GPURT_MAX_WAITERS, GPURT_MAX_WAITERS));
  }
  Waiter& w = s.waiters[slot];
  w.in_use = 1;
  w.pid = me.pid;
  w.tid = me.tid;
  w.start = me.start;
  w.ticket = ticket;
  w.priority = priority;
  w.wake.store(0, std::memory_order_relaxed);
  s.waiting.fetch_add(1, std::memory_order_relaxed);
  for (;;) {
    if (s.free_count > 0 && head(s) == slot) {
      w.in_use = 0;
      s.waiting.fetch_sub(1, std::memory_order_relaxed);
      const int granted = grant(s, allowed, me, out, info);
      std::atomic<std::uint32_t>* next = mark_head(s);  // units left: the next request goes too
      leave();
      if (next != nullptr) futex_wake(next, 1);
      return granted;
    }
    w.wake.store(0, std::memory_order_relaxed);
    leave();
    bool timed_out = false;
    wait_for_wake(&w.wake, &timed_out);
    if (int r = enter(me); r < 0) return r;
    if (timed_out) reclaim(s);
  }
}

int ShmLock::unlock(const gpurt_mask& held, std::uint64_t* epoch) noexcept {
  const Identity& me = self();
  if (int r = enter(me); r < 0) return r;
  Segment& s = *_seg;
  const int h = s.units.load(std::memory_order_relaxed);
  int count = 0;
  std::string problem;
  int err = 0;
  for (int w = 0; w < 4 && err == 0; ++w) {
    for (std::uint64_t bits = held.bits[w]; bits != 0 && err == 0; bits &= bits - 1) {
      const int u = w * 64 + std::countr_zero(bits);
      ++count;
      if (u >= h) {
        err = EINVAL;
        problem = fmt::format("unit {} is outside 0..{}", u, h - 1);
      } else if (s.owner[u].pid == 0) {
        err = EINVAL;
        problem = fmt::format("unit {} is not held (double unlock?)", u);
      } else if (s.owner[u].pid != me.pid || s.owner[u].tid != me.tid) {
        err = EPERM;
        problem = fmt::format("unit {} is held by process {} thread {}, not by the caller", u, s.owner[u].pid,
                              s.owner[u].tid);
      }
    }
  }
  if (err == 0 && count == 0) {
    err = EINVAL;
    problem = "the mask to unlock is empty";
  }
  if (err != 0) {
    leave();
    return fail(err, std::move(problem));
  }
  for (int w = 0; w < 4; ++w) {
    for (std::uint64_t bits = held.bits[w]; bits != 0; bits &= bits - 1) {
      s.owner[w * 64 + std::countr_zero(bits)] = Owner{};
    }
    s.free_bits[w] |= held.bits[w];
  }
  s.free_count += count;
  const std::uint64_t e = ++s.epoch;
  check_invariants(s);
  std::atomic<std::uint32_t>* next = mark_head(s);
  leave();
  if (next != nullptr) futex_wake(next, 1);
  if (epoch != nullptr) *epoch = e;
  return 0;
}

int ShmLock::resize(int units) noexcept {
  if (units < 1 || units > GPURT_MAX_UNITS) {
    return fail(EINVAL, fmt::format("k = {}: must be 1..{}", units, GPURT_MAX_UNITS));
  }
  const Identity& me = self();
  if (int r = enter(me); r < 0) return r;
  Segment& s = *_seg;
  const int h = s.units.load(std::memory_order_relaxed);
  if (s.free_count != h || s.waiting.load(std::memory_order_relaxed) != 0) {
    const int held = h - s.free_count;
    leave();
    return fail(EBUSY, fmt::format("cannot resize: {} slot(s) held, {} waiting", held, waiting()));
  }
  std::memset(s.free_bits, 0, sizeof s.free_bits);
  for (int u = 0; u < units; ++u) s.free_bits[u / 64] |= std::uint64_t{1} << (u % 64);
  s.free_count = units;
  s.units.store(units, std::memory_order_relaxed);
  ++s.epoch;
  check_invariants(s);
  leave();
  return 0;
}

}  // namespace gpurt::runtime

#include "gpurt/runtime/shm_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iterator>
#include <new>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/time.hpp"
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
[[gnu::noinline]] std::atomic<std::uint32_t>* mark_head_slow(Segment& s) {
  const int h = head(s);
  if (h < 0) return nullptr;
  s.waiters[h].wake.store(1, std::memory_order_release);
  return &s.waiters[h].wake;
}
inline std::atomic<std::uint32_t>* mark_head(Segment& s) {
  if (s.free_count <= 0 || s.waiting.load(std::memory_order_relaxed) == 0) [[likely]]
    return nullptr;
  return mark_head_slow(s);
}

void check_invariants([[maybe_unused]] const Segment& s) {
#ifndef NDEBUG
  int free = 0;
  for (int u = 0; u < unit_count(s); ++u) {
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
  const int units = unit_count(s);
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

// Units of a process that died while holding them come back when a waiter's poll times out --
// but a request that finds some unit free never waits, and would get less than it could for as
// long as the dead process's units stay marked held. So a grant that would be smaller than the
// request's largest size first looks for holders that are gone, at most once per kPoll per
// process (per handle: `last_check`, process memory), so a process that has not looked lately
// -- e.g. the first one to ask after a holder died -- always looks.
// The look is process_alive per distinct holder (kill(pid, 0), then a /proc read that also tells
// a zombie or a recycled pid from the holder: a few microseconds each, inside the critical
// section, once per kPoll per handle); only when one is gone does the full reclaim run. kill
// alone passed a zombie holder, whose units then stayed held while no request had to wait.
// Returns the size to grant (smlp_grant of the free units after any reclaim).
[[gnu::noinline]] int recheck_short(Segment& s, std::span<const int> allowed, int n,
                                    std::uint64_t& last_check) {
  const auto now = static_cast<std::uint64_t>(monotonic_ns());
  if (last_check != 0 &&
      now - last_check < static_cast<std::uint64_t>(std::chrono::nanoseconds(kPoll).count())) {
    return n;
  }
  last_check = now;
  const Identity& me = self();
  std::int32_t checked[8] = {};
  int next = 0;
  const int units = unit_count(s);
  for (int u = 0; u < units; ++u) {
    const std::int32_t pid = s.owner[u].pid;
    // Our own units are alive (a record of an earlier process with our pid is not ours).
    if (pid == 0 || (pid == me.pid && s.owner[u].start == me.start) ||
        std::find(std::begin(checked), std::end(checked), pid) != std::end(checked)) {
      continue;
    }
    checked[next] = pid;
    next = (next + 1) % 8;
    if (!process_alive(pid, s.owner[u].start)) {
      reclaim(s);
      return smlp_grant(allowed, s.free_count);
    }
  }
  return n;
}

// The size to grant now: smlp_grant of the free units; a short grant first checks for dead holders.
inline int grant_size(Segment& s, std::span<const int> allowed, std::uint64_t& last_check) {
  const int n = smlp_grant(allowed, s.free_count);
  return n == allowed.back() ? n : recheck_short(s, allowed, n, last_check);
}

// Grants n (grant_size) of the lowest-numbered free units to `me`.
inline int grant(Segment& s, int n, const Identity& me, gpurt_mask* out, GrantInfo* info) {
  const int free = s.free_count;
  assert(n >= 1 && n <= free);
  const Owner mine{me.pid, me.tid, me.start};
  int got = 0;
  int w = 0;
  for (; w < 4 && got < n; ++w) {
    std::uint64_t avail = s.free_bits[w];
    std::uint64_t take = 0;
    while (avail != 0 && got < n) {
      const int b = std::countr_zero(avail);
      avail &= avail - 1;
      assert(s.owner[w * 64 + b].pid == 0 && "unit granted twice");
      s.owner[w * 64 + b] = mine;
      take |= std::uint64_t{1} << b;
      ++got;
    }
    s.free_bits[w] &= ~take;
    out->bits[w] = take;  // word by word: a 16-byte copy of a local mask stalls store forwarding
  }
  for (; w < 4; ++w) out->bits[w] = 0;
  s.free_count -= n;
  const std::uint64_t epoch = ++s.epoch;
  if (info != nullptr) {
    info->epoch = epoch;
    info->free_before = free;
  }
  check_invariants(s);
  return n;
}

// Whether `allowed` is already a valid request as the protocol keeps it: strictly ascending,
// starting at 1, at most h.
bool canonical(std::span<const int> allowed, int h) noexcept {
  if (allowed.empty() || allowed.front() != 1 || allowed.back() > h) return false;
  for (std::size_t i = 1; i < allowed.size(); ++i) {
    if (allowed[i] <= allowed[i - 1]) return false;
  }
  return true;
}

// Sorts and deduplicates `in` into `sorted` (room for GPURT_MAX_UNITS), checking every size;
// returns how many remain, or -errno with the reason. Insertion into a sorted array: cheap for
// the few sizes a request names.
[[gnu::cold]] int canonicalise(std::span<const int> in, int h, int* sorted) noexcept {
  if (in.empty()) return fail(EINVAL, "allowed sizes are empty");
  int n = 0;
  for (int s : in) {
    if (s < 1 || s > h) return fail(EINVAL, fmt::format("allowed size {} is outside 1..{} (H)", s, h));
    int i = n;
    while (i > 0 && sorted[i - 1] > s) --i;
    if (i > 0 && sorted[i - 1] == s) continue;  // duplicate
    if (n >= GPURT_MAX_UNITS) return fail(EINVAL, "more than 256 distinct allowed sizes");
    for (int j = n; j > i; --j) sorted[j] = sorted[j - 1];
    sorted[i] = s;
    ++n;
  }
  if (sorted[0] != 1) {
    return fail(EINVAL,
                "allowed sizes must contain 1: a request is granted when one unit is free (FFT/SMLP §III-A)");
  }
  return n;
}

// (pid, tid) as one 64-bit value, for comparing owners with one load.
constexpr std::uint64_t owner_key(std::int32_t pid, std::int32_t tid) noexcept {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(tid)) << 32;
}
inline std::uint64_t owner_key(const Owner& o) noexcept { return owner_key(o.pid, o.tid); }

// The units of word w (0..3) that exist in a lock of h units.
std::uint64_t word_range(int w, int h) noexcept {
  const int lo = w * 64;
  if (h >= lo + 64) return ~std::uint64_t{0};
  if (h <= lo) return 0;
  return (std::uint64_t{1} << (h - lo)) - 1;
}

// Why `held` may not be unlocked by `me` (called only when the fast check refused it): sets the
// message and returns -errno.
[[gnu::cold]] int refuse_unlock(const Segment& s, const gpurt_mask& held, const Identity& me,
                                int h) noexcept {
  for (int w = 0; w < 4; ++w) {
    for (std::uint64_t bits = held.bits[w]; bits != 0; bits &= bits - 1) {
      const int u = w * 64 + std::countr_zero(bits);
      if (u >= h) return fail(EINVAL, fmt::format("unit {} is outside 0..{}", u, h - 1));
      const Owner& o = s.owner[u];
      if (o.pid == 0) return fail(EINVAL, fmt::format("unit {} is not held (double unlock?)", u));
      if (o.pid != me.pid || o.tid != me.tid) {
        return fail(EPERM, fmt::format("unit {} is held by process {} thread {}, not by the caller", u, o.pid,
                                       o.tid));
      }
    }
  }
  return fail(EINVAL, "the mask to unlock is empty");
}

[[gnu::cold, gnu::noinline]] int refuse_null_mask() noexcept { return fail(EINVAL, "output mask is NULL"); }

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

int ShmLock::lock(std::span<const int> allowed, int priority, gpurt_mask* out, GrantInfo* info) noexcept {
  if (out == nullptr) [[unlikely]]
    return refuse_null_mask();
  // Sizes as a sorted set, checked against H (fixed for SMLP locks; k-exclusion asks for {1}).
  // Callers normally pass them that way already; only other inputs are copied and sorted (off
  // this path, so that its stack frame stays small).
  if (!canonical(allowed, unit_count(*_seg))) [[unlikely]] {
    return lock_sorting(allowed, priority, out, info);
  }
  const Identity& me = self();
  if (int r = enter(me); r < 0) return r;
  Segment& s = *_seg;
  const std::uint64_t ticket = ++s.epoch;
  if (info != nullptr) info->ticket = ticket;
  if (s.waiting.load(std::memory_order_relaxed) == 0 && s.free_count > 0) [[likely]] {
    const int granted = grant(s, grant_size(s, allowed, _last_check_ns), me, out, info);
    leave();
    return granted;
  }
  return queue_and_wait(allowed, priority, ticket, me, out, info);
}

int ShmLock::lock_sorting(std::span<const int> allowed, int priority, gpurt_mask* out,
                          GrantInfo* info) noexcept {
  int sorted[GPURT_MAX_UNITS];
  const int n = canonicalise(allowed, unit_count(*_seg), sorted);
  if (n < 0) return n;
  return lock(std::span<const int>(sorted, static_cast<std::size_t>(n)), priority, out, info);
}

int ShmLock::queue_and_wait(std::span<const int> allowed, int priority, std::uint64_t ticket,
                            const Identity& me, gpurt_mask* out, GrantInfo* info) noexcept {
  Segment& s = *_seg;
  int slot = -1;
  for (int i = 0; i < GPURT_MAX_WAITERS; ++i) {
    if (s.waiters[i].in_use == 0) {
      slot = i;
      break;
    }
  }
  if (slot < 0) {
    // Full: entries of processes that died waiting may hold it (nothing else reclaims them once
    // no live waiter polls), so drop those first; only a queue of live requests is full.
    reclaim(s);
    for (int i = 0; i < GPURT_MAX_WAITERS; ++i) {
      if (s.waiters[i].in_use == 0) {
        slot = i;
        break;
      }
    }
  }
  if (slot < 0) {
    leave();
    return fail(EAGAIN,
                fmt::format("{} requests already wait; at most {}", GPURT_MAX_WAITERS, GPURT_MAX_WAITERS));
  }
  Waiter& w = s.waiters[slot];
  // The entry is published last: a process killed between these stores must not leave an entry
  // marked in use with the previous occupant's pid, start and (old, small) ticket, which a live
  // previous occupant would keep at the head of the queue for good (reclaim keeps live owners).
  w.pid = me.pid;
  w.tid = me.tid;
  w.start = me.start;
  w.ticket = ticket;
  w.priority = priority;
  w.wake.store(0, std::memory_order_relaxed);
  std::atomic_ref<std::uint32_t>(w.in_use).store(1, std::memory_order_release);
  s.waiting.fetch_add(1, std::memory_order_relaxed);
  for (;;) {
    if (s.free_count > 0 && head(s) == slot) {
      w.in_use = 0;
      s.waiting.fetch_sub(1, std::memory_order_relaxed);
      const int granted = grant(s, grant_size(s, allowed, _last_check_ns), me, out, info);
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
  // `held` is read word by word, never copied whole: callers have just written it word by word
  // (grant), and a 16-byte load of 8-byte stores stalls store forwarding.
  const Identity& me = self();
  if (int r = enter(me); r < 0) return r;
  Segment& s = *_seg;
  const int h = unit_count(s);
  // Every unit in the mask must exist and be held by this thread; nothing changes otherwise.
  // An owner is compared as one 64-bit (pid, tid) key.
  const std::uint64_t key = owner_key(me.pid, me.tid);
  int count = 0;
  if ((held.bits[1] | held.bits[2] | held.bits[3]) == 0) [[likely]] {
    // Units 0..63 only (every lock of up to 64 units): one word to check and return.
    const std::uint64_t bits = held.bits[0];
    bool ok = bits != 0 && (bits & ~word_range(0, h)) == 0;
    for (std::uint64_t b = bits; b != 0 && ok; b &= b - 1) {  // counts here: no popcnt on x86-64 v1
      ok = owner_key(s.owner[std::countr_zero(b)]) == key;
      ++count;
    }
    if (!ok) [[unlikely]] {
      const int r = refuse_unlock(s, held, me, h);
      leave();
      return r;
    }
    for (std::uint64_t b = bits; b != 0; b &= b - 1) s.owner[std::countr_zero(b)] = Owner{};
    s.free_bits[0] |= bits;
  } else {
    bool ok = true;
    for (int w = 0; w < 4 && ok; ++w) {
      const std::uint64_t bits = held.bits[w];
      if (bits == 0) continue;
      ok = (bits & ~word_range(w, h)) == 0;
      for (std::uint64_t b = bits; b != 0 && ok; b &= b - 1) {
        ok = owner_key(s.owner[w * 64 + std::countr_zero(b)]) == key;
        ++count;
      }
    }
    if (!ok) [[unlikely]] {
      const int r = refuse_unlock(s, held, me, h);
      leave();
      return r;
    }
    for (int w = 0; w < 4; ++w) {
      const std::uint64_t bits = held.bits[w];
      for (std::uint64_t b = bits; b != 0; b &= b - 1) s.owner[w * 64 + std::countr_zero(b)] = Owner{};
      s.free_bits[w] |= bits;
    }
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
  const int h = unit_count(s);
  const auto busy = [&] { return s.free_count != h || s.waiting.load(std::memory_order_relaxed) != 0; };
  // A process that died holding or waiting must not block the resize for good: nothing else
  // reclaims a k-exclusion slot while no request has to wait.
  if (busy()) reclaim(s);
  if (busy()) {
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

// The C API's hot entry points (the rest is in c_api.cpp): here, in the protocol's translation
// unit, so that ShmLock::lock and unlock are inlined into them.
namespace {
// Off the path: building a message must not give the entry points a stack frame.
[[gnu::cold, gnu::noinline]] int refuse(int err, const char* why) noexcept {
  return gpurt::runtime::fail(err, why);
}
[[gnu::cold, gnu::noinline]] int refuse_slot(int slot, int k) noexcept {
  return gpurt::runtime::fail(EINVAL, fmt::format("slot {} is outside 0..{}", slot, k - 1));
}
}  // namespace

extern "C" {

int gpurt_smlp_lock(gpurt_smlp* lock, const int* allowed_sizes, int n, int priority, gpurt_mask* out) {
  if (lock == nullptr) [[unlikely]]
    return refuse(EINVAL, "lock is NULL");
  if (allowed_sizes == nullptr || n <= 0) [[unlikely]]
    return refuse(EINVAL, "allowed sizes are empty");
  return lock->impl->lock(std::span<const int>(allowed_sizes, static_cast<std::size_t>(n)), priority, out,
                          nullptr);
}

int gpurt_smlp_unlock(gpurt_smlp* lock, const gpurt_mask* held) {
  if (lock == nullptr) [[unlikely]]
    return refuse(EINVAL, "lock is NULL");
  if (held == nullptr) [[unlikely]]
    return refuse(EINVAL, "mask is NULL");
  return lock->impl->unlock(*held, nullptr);
}

int gpurt_kx_acquire(gpurt_kx* lock) {
  if (lock == nullptr) [[unlikely]]
    return refuse(EINVAL, "lock is NULL");
  static constexpr int kOne[] = {1};
  gpurt_mask m{};
  const int r = lock->impl->lock(kOne, 0, &m, nullptr);
  if (r < 0) return r;
  for (int w = 0; w < 4; ++w) {
    if (m.bits[w] != 0) return w * 64 + std::countr_zero(m.bits[w]);
  }
  return refuse(EPROTO, "granted an empty slot set");  // cannot happen: a grant is >= 1 unit
}

int gpurt_kx_release(gpurt_kx* lock, int slot) {
  if (lock == nullptr) [[unlikely]]
    return refuse(EINVAL, "lock is NULL");
  const int k = lock->impl->units();
  if (slot < 0 || slot >= k) [[unlikely]] {
    return refuse_slot(slot, k);
  }
  gpurt_mask m{};
  m.bits[slot / 64] = std::uint64_t{1} << (slot % 64);
  return lock->impl->unlock(m, nullptr);
}

}  // extern "C"

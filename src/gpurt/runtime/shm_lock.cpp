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
#include "gpurt/runtime/sys.hpp"

namespace gpurt::runtime {

namespace {

constexpr std::uint64_t kMagic = 0x6770'7572'746c'6b31;  // "gpurtlk1"
constexpr std::uint32_t kVersion = 1;
constexpr auto kPoll = std::chrono::milliseconds(50);  // dead-owner check period while waiting
constexpr auto kAttachWait = std::chrono::seconds(2);  // for a creator still initialising
constexpr int kSpinMin = 16;
constexpr int kSpinMax = 2048;

thread_local std::string t_error;

struct Owner {
  std::int32_t pid;  // 0: the unit is free
  std::int32_t tid;
  std::uint64_t start;
};

// One queued request; its own cache line, since its futex word is polled while spinning.
struct alignas(64) Waiter {
  std::atomic<std::uint32_t> wake;  // set to 1 (under the mutex) to make the waiter re-check
  std::uint32_t in_use;
  std::int32_t pid;
  std::int32_t tid;
  std::uint64_t start;
  std::uint64_t ticket;
  std::int32_t priority;
};

std::string_view strip(const char* name) {
  std::string_view n(name);
  if (!n.empty() && n.front() == '/') n.remove_prefix(1);
  return n;
}

int check_name(const char* name) noexcept {
  if (name == nullptr) return fail(EINVAL, "lock name is NULL");
  const std::string_view n = strip(name);
  if (n.empty()) return fail(EINVAL, "lock name is empty");
  if (n.size() > GPURT_MAX_NAME) {
    return fail(ENAMETOOLONG,
                fmt::format("lock name is {} characters long; at most {}", n.size(), GPURT_MAX_NAME));
  }
  if (n.find('/') != std::string_view::npos) {
    return fail(EINVAL, fmt::format("lock name '{}' contains '/' (only a leading one is allowed)", n));
  }
  return 0;
}

std::string shm_path(LockKind kind, const char* name) {
  return fmt::format("/gpurt-{}-{}", kind == LockKind::smlp ? "smlp" : "kx", strip(name));
}

const char* kind_name(LockKind kind) { return kind == LockKind::smlp ? "SMLP lock" : "k-exclusion lock"; }

}  // namespace

struct ShmLock::Segment {
  std::atomic<std::uint64_t> ready;  // kMagic once the creator has initialised everything
  std::uint32_t version;
  std::uint32_t kind;
  std::atomic<std::int32_t> units;  // written only under the mutex (resize); read anywhere
  std::int32_t policy;
  ShmMutex mutex;  // guards everything below; detects an owner that died holding it
  std::uint64_t epoch;
  std::uint64_t free_bits[4];
  std::int32_t free_count;
  std::atomic<std::int32_t> waiting;  // in-use Waiter slots; written under the mutex
  Owner owner[GPURT_MAX_UNITS];
  Waiter waiters[GPURT_MAX_WAITERS];
};

namespace {

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
  const int units = s.units.load(std::memory_order_relaxed);
  for (int u = 0; u < units; ++u) {
    Owner& o = s.owner[u];
    if (o.pid != 0 && !process_alive(o.pid, o.start)) o = Owner{};
  }
  int waiting = 0;
  for (Waiter& w : s.waiters) {
    if (w.in_use != 0 && !process_alive(w.pid, w.start)) w.in_use = 0;
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

int fail(int err, std::string message) noexcept {
  try {
    t_error = std::move(message);
  } catch (...) {
    t_error.clear();  // out of memory for the message; the code still says what happened
  }
  return -err;
}

const char* last_error() noexcept { return t_error.c_str(); }

int ShmLock::open(LockKind kind, const char* name, int units, int policy, bool attach_any,
                  ShmLock** out) noexcept {
  if (int r = check_name(name); r < 0) return r;
  const bool any_size = attach_any && units == 0;
  if (!any_size && (units < 1 || units > GPURT_MAX_UNITS)) {
    return fail(EINVAL, fmt::format("units = {}: must be 1..{}", units, GPURT_MAX_UNITS));
  }
  if (policy != GPURT_POLICY_FIFO && policy != GPURT_POLICY_PRIORITY) {
    return fail(EINVAL, fmt::format("policy = {}: must be 0 (FIFO) or 1 (priority)", policy));
  }
  const std::string path = shm_path(kind, name);
  bool created = false;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    if (!any_size) {
      fd = shm_open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        created = true;
        break;
      }
      if (errno != EEXIST) return fail(errno, fmt::format("shm_open({}): {}", path, std::strerror(errno)));
    }
    fd = shm_open(path.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0 && (errno != ENOENT || any_size)) {
      return fail(errno, fmt::format("shm_open({}): {}", path, std::strerror(errno)));
    }
  }
  if (fd < 0) return fail(EAGAIN, fmt::format("{} is being created and removed repeatedly", path));

  const auto deadline = std::chrono::steady_clock::now() + kAttachWait;
  if (created) {
    if (ftruncate(fd, sizeof(Segment)) != 0) {
      const int err = errno;
      close(fd);
      shm_unlink(path.c_str());
      return fail(err, fmt::format("ftruncate({}): {}", path, std::strerror(err)));
    }
  } else {
    struct stat st {};
    while (fstat(fd, &st) == 0 && st.st_size == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (st.st_size == 0) {
      close(fd);
      return fail(ETIMEDOUT, fmt::format("{} was never initialised; remove it with gpurt_*_unlink", path));
    }
    if (st.st_size != static_cast<off_t>(sizeof(Segment))) {
      close(fd);
      return fail(EPROTO, fmt::format("{} is not a gpurt lock of this version ({} bytes)", path, st.st_size));
    }
  }
  void* addr = mmap(nullptr, sizeof(Segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_errno = errno;
  close(fd);
  if (addr == MAP_FAILED) return fail(map_errno, fmt::format("mmap({}): {}", path, std::strerror(map_errno)));

  Segment* seg = nullptr;
  if (created) {
    seg = new (addr) Segment{};
    seg->version = kVersion;
    seg->kind = static_cast<std::uint32_t>(kind);
    seg->units.store(units, std::memory_order_relaxed);
    seg->policy = policy;
    for (int u = 0; u < units; ++u) seg->free_bits[u / 64] |= std::uint64_t{1} << (u % 64);
    seg->free_count = units;
    seg->ready.store(kMagic, std::memory_order_release);
  } else {
    seg = static_cast<Segment*>(addr);
    while (seg->ready.load(std::memory_order_acquire) != kMagic &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::string problem;
    int err = EINVAL;
    const int have = seg->units.load(std::memory_order_relaxed);
    if (seg->ready.load(std::memory_order_acquire) != kMagic) {
      err = ETIMEDOUT;
      problem = fmt::format("{} was never initialised; remove it with gpurt_*_unlink", path);
    } else if (seg->version != kVersion || seg->kind != static_cast<std::uint32_t>(kind)) {
      err = EPROTO;
      problem = fmt::format("{} is not a {} of this gpurt version", path, kind_name(kind));
    } else if (!any_size && have != units) {
      problem = fmt::format("{} '{}' exists with {} units; asked for {}", kind_name(kind), strip(name), have,
                            units);
    } else if (seg->policy != policy) {
      problem = fmt::format("{} '{}' exists with policy {}; asked for {}", kind_name(kind), strip(name),
                            seg->policy, policy);
    }
    if (!problem.empty()) {
      munmap(addr, sizeof(Segment));
      return fail(err, std::move(problem));
    }
  }
  *out = new (std::nothrow) ShmLock(seg, kind);
  if (*out == nullptr) {
    munmap(addr, sizeof(Segment));
    return fail(ENOMEM, "out of memory");
  }
  return 0;
}

int ShmLock::unlink(LockKind kind, const char* name) noexcept {
  if (int r = check_name(name); r < 0) return r;
  const std::string path = shm_path(kind, name);
  if (shm_unlink(path.c_str()) != 0) {
    return fail(errno, fmt::format("shm_unlink({}): {}", path, std::strerror(errno)));
  }
  return 0;
}

ShmLock::~ShmLock() { munmap(_seg, sizeof(Segment)); }

int ShmLock::units() const noexcept { return _seg->units.load(std::memory_order_relaxed); }
int ShmLock::policy() const noexcept { return _seg->policy; }
int ShmLock::waiting() const noexcept { return _seg->waiting.load(std::memory_order_relaxed); }

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

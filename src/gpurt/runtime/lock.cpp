#include "gpurt/runtime/lock.hpp"

#include <pthread.h>
#include <sched.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

namespace gpurt {

namespace {

[[noreturn]] void raise(int negative_errno) { throw LockError(-negative_errno, runtime::last_error()); }

std::unique_ptr<runtime::ShmLock> open_lock(runtime::LockKind kind, const std::string& name, int units,
                                            int policy) {
  runtime::ShmLock* raw = nullptr;
  const int r =
      runtime::ShmLock::open(kind, name.c_str(), units, policy, kind == runtime::LockKind::kx, &raw);
  if (r < 0) raise(r);
  return std::unique_ptr<runtime::ShmLock>(raw);
}

bool unlink_lock(runtime::LockKind kind, const std::string& name) {
  const int r = runtime::ShmLock::unlink(kind, name.c_str());
  if (r == -ENOENT) return false;
  if (r < 0) raise(r);
  return true;
}

}  // namespace

std::vector<int> mask_units(const gpurt_mask& mask) {
  std::vector<int> units;
  for (int w = 0; w < 4; ++w) {
    for (std::uint64_t bits = mask.bits[w]; bits != 0; bits &= bits - 1) {
      units.push_back(w * 64 + std::countr_zero(bits));
    }
  }
  return units;
}

int mask_count(const gpurt_mask& mask) noexcept {
  int n = 0;
  for (std::uint64_t w : mask.bits) n += std::popcount(w);
  return n;
}

bool mask_test(const gpurt_mask& mask, int unit) noexcept {
  if (unit < 0 || unit >= GPURT_MAX_UNITS) return false;
  return ((mask.bits[unit / 64] >> (unit % 64)) & 1U) != 0;
}

gpurt_mask mask_of(std::span<const int> units) {
  gpurt_mask m{};
  for (int u : units) {
    if (u < 0 || u >= GPURT_MAX_UNITS)
      throw LockError(EINVAL, "unit " + std::to_string(u) + " is outside 0..255");
    m.bits[u / 64] |= std::uint64_t{1} << (u % 64);
  }
  return m;
}

// ---- SmlpGuard ----

SmlpGuard::SmlpGuard(SmlpGuard&& other) noexcept
    : _lock(std::exchange(other._lock, nullptr)), _mask(other._mask), _info(other._info) {}

SmlpGuard& SmlpGuard::operator=(SmlpGuard&& other) noexcept {
  if (this != &other) {
    if (_lock != nullptr) {
      try {
        release();
      } catch (const LockError&) {  // nothing sensible to do with it in an assignment
      }
    }
    _lock = std::exchange(other._lock, nullptr);
    _mask = other._mask;
    _info = other._info;
  }
  return *this;
}

SmlpGuard::~SmlpGuard() {
  if (_lock == nullptr) return;
  try {
    release();
  } catch (const LockError&) {  // a destructor must not throw; the lock refused (wrong thread)
  }
}

void SmlpGuard::release() {
  if (_lock == nullptr) return;
  _lock->unlock(_mask);  // throws (wrong thread): the guard still holds the units, and says so
  _lock = nullptr;
}

// ---- SmlpLock ----

SmlpLock::SmlpLock(const std::string& name, int units, Policy policy)
    : _impl(open_lock(runtime::LockKind::smlp, name, units, static_cast<int>(policy))) {}

bool SmlpLock::unlink(const std::string& name) { return unlink_lock(runtime::LockKind::smlp, name); }

SmlpGuard SmlpLock::lock(std::span<const int> allowed_sizes, int priority) {
  SmlpGuard guard;
  lock(allowed_sizes, priority, guard._mask, &guard._info);
  guard._lock = this;
  return guard;
}

int SmlpLock::lock(std::span<const int> allowed_sizes, int priority, gpurt_mask& out,
                   runtime::GrantInfo* info) {
  const int r = _impl->lock(allowed_sizes, priority, &out, info);
  if (r < 0) raise(r);
  return r;
}

std::uint64_t SmlpLock::unlock(const gpurt_mask& held) {
  std::uint64_t epoch = 0;
  const int r = _impl->unlock(held, &epoch);
  if (r < 0) raise(r);
  return epoch;
}

// ---- KxLock ----

KxLock::KxLock(const std::string& name, int k)
    : _impl(open_lock(runtime::LockKind::kx, name, k, GPURT_POLICY_FIFO)) {}

bool KxLock::unlink(const std::string& name) { return unlink_lock(runtime::LockKind::kx, name); }

KxLock::Slot::~Slot() {
  if (_lock == nullptr) return;
  try {
    _lock->release(_index);
  } catch (const LockError&) {  // see SmlpGuard::~SmlpGuard
  }
}

KxLock::Slot KxLock::acquire() { return Slot(*this, acquire_index()); }

namespace {

// The policy and priority a boosted holder had before it got its slot (one slot per thread at a
// time is the common case; a thread holding several keeps the first saved state).
thread_local int t_boosted = 0;
thread_local int t_saved_policy = SCHED_OTHER;
thread_local sched_param t_saved_param{};

void boost_self(int priority) {
  if (t_boosted++ > 0) return;
  pthread_getschedparam(pthread_self(), &t_saved_policy, &t_saved_param);
  sched_param p{};
  p.sched_priority = priority;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);  // checked in set_holder_priority
}

void unboost_self() {
  if (t_boosted == 0 || --t_boosted > 0) return;
  pthread_setschedparam(pthread_self(), t_saved_policy, &t_saved_param);
}

}  // namespace

void KxLock::set_holder_priority(int priority) {
  if (priority < 0 || priority > 99)
    throw LockError(EINVAL,
                    "holder priority " + std::to_string(priority) + " is outside 0..99 (0: no boosting)");
  if (priority > 0) {
    // Try it once on this thread, then restore: the error is given now, not at the first grant.
    int policy = 0;
    sched_param saved{};
    pthread_getschedparam(pthread_self(), &policy, &saved);
    sched_param p{};
    p.sched_priority = priority;
    if (const int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p); e != 0) {
      throw LockError(e, "cannot run lock holders under SCHED_FIFO priority " + std::to_string(priority) +
                             ": the process needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least that (" +
                             std::strerror(e) + ")");
    }
    pthread_setschedparam(pthread_self(), policy, &saved);
  }
  _boost = priority;
}

int KxLock::acquire_index() {
  static constexpr int kOne[] = {1};
  gpurt_mask m{};
  const int r = _impl->lock(kOne, 0, &m, nullptr);
  if (r < 0) raise(r);
  if (_boost > 0) boost_self(_boost);
  return mask_units(m).front();
}

void KxLock::release(int slot) {
  if (slot < 0 || slot >= GPURT_MAX_UNITS)
    throw LockError(EINVAL, "slot " + std::to_string(slot) + " is out of range");
  gpurt_mask m{};
  m.bits[slot / 64] = std::uint64_t{1} << (slot % 64);
  const int r = _impl->unlock(m, nullptr);
  if (r < 0) raise(r);
  if (_boost > 0) unboost_self();  // after the unlock: the next holder is woken while we still run
}

void KxLock::resize(int k) {
  const int r = _impl->resize(k);
  if (r < 0) raise(r);
}

}  // namespace gpurt

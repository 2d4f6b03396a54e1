#include "gpurt/runtime/lock.hpp"

#include <bit>
#include <cerrno>
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
  SmlpLock* lock = std::exchange(_lock, nullptr);
  lock->unlock(_mask);
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

int KxLock::acquire_index() {
  static constexpr int kOne[] = {1};
  gpurt_mask m{};
  const int r = _impl->lock(kOne, 0, &m, nullptr);
  if (r < 0) raise(r);
  return mask_units(m).front();
}

void KxLock::release(int slot) {
  if (slot < 0 || slot >= GPURT_MAX_UNITS)
    throw LockError(EINVAL, "slot " + std::to_string(slot) + " is out of range");
  gpurt_mask m{};
  m.bits[slot / 64] = std::uint64_t{1} << (slot % 64);
  const int r = _impl->unlock(m, nullptr);
  if (r < 0) raise(r);
}

void KxLock::resize(int k) {
  const int r = _impl->resize(k);
  if (r < 0) raise(r);
}

}  // namespace gpurt

// The C API of gpurt.h: thin wrappers that turn ShmLock's negative errno values into the C
// conventions (NULL + errno for constructors, -errno otherwise). No exception crosses them.
#include <cerrno>
#include <limits>
#include <memory>
#include <span>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/shm_lock.hpp"

using gpurt::runtime::fail;
using gpurt::runtime::LockKind;
using gpurt::runtime::ShmLock;

struct gpurt_smlp {
  std::unique_ptr<ShmLock> impl;
};
struct gpurt_kx {
  std::unique_ptr<ShmLock> impl;
};

namespace {

template <typename Handle>
Handle* open_handle(LockKind kind, const char* name, int units, int policy) {
  ShmLock* raw = nullptr;
  const int r = ShmLock::open(kind, name, units, policy, kind == LockKind::kx, &raw);
  if (r < 0) {
    errno = -r;
    return nullptr;
  }
  auto* h = new (std::nothrow) Handle{std::unique_ptr<ShmLock>(raw)};
  if (h == nullptr) {
    delete raw;
    errno = -fail(ENOMEM, "out of memory");
  }
  return h;
}

}  // namespace

extern "C" {

gpurt_smlp* gpurt_smlp_open(const char* name, int units, int policy) {
  return open_handle<gpurt_smlp>(LockKind::smlp, name, units, policy);
}

int gpurt_smlp_lock(gpurt_smlp* lock, const int* allowed_sizes, int n, int priority, gpurt_mask* out) {
  if (lock == nullptr) return fail(EINVAL, "lock is NULL");
  if (allowed_sizes == nullptr || n <= 0) return fail(EINVAL, "allowed sizes are empty");
  return lock->impl->lock(std::span<const int>(allowed_sizes, static_cast<std::size_t>(n)), priority, out,
                          nullptr);
}

int gpurt_smlp_unlock(gpurt_smlp* lock, const gpurt_mask* held) {
  if (lock == nullptr) return fail(EINVAL, "lock is NULL");
  if (held == nullptr) return fail(EINVAL, "mask is NULL");
  return lock->impl->unlock(*held, nullptr);
}

int gpurt_smlp_units(const gpurt_smlp* lock) {
  return lock == nullptr ? fail(EINVAL, "lock is NULL") : lock->impl->units();
}

void gpurt_smlp_close(gpurt_smlp* lock) { delete lock; }

int gpurt_smlp_unlink(const char* name) { return ShmLock::unlink(LockKind::smlp, name); }

gpurt_kx* gpurt_kx_open(const char* name, int k) {
  return open_handle<gpurt_kx>(LockKind::kx, name, k, GPURT_POLICY_FIFO);
}

int gpurt_kx_acquire(gpurt_kx* lock) {
  if (lock == nullptr) return fail(EINVAL, "lock is NULL");
  static constexpr int kOne[] = {1};
  gpurt_mask m{};
  const int r = lock->impl->lock(kOne, 0, &m, nullptr);
  if (r < 0) return r;
  for (int w = 0; w < 4; ++w) {
    if (m.bits[w] != 0) return w * 64 + __builtin_ctzll(m.bits[w]);
  }
  return fail(EPROTO, "granted an empty slot set");  // cannot happen: a grant is >= 1 unit
}

int gpurt_kx_release(gpurt_kx* lock, int slot) {
  if (lock == nullptr) return fail(EINVAL, "lock is NULL");
  if (slot < 0 || slot >= lock->impl->units()) {
    return fail(EINVAL,
                "slot " + std::to_string(slot) + " is outside 0.." + std::to_string(lock->impl->units() - 1));
  }
  gpurt_mask m{};
  m.bits[slot / 64] = std::uint64_t{1} << (slot % 64);
  return lock->impl->unlock(m, nullptr);
}

int gpurt_kx_resize(gpurt_kx* lock, int k) {
  if (lock == nullptr) return fail(EINVAL, "lock is NULL");
  return lock->impl->resize(k);
}

int gpurt_kx_slots(const gpurt_kx* lock) {
  return lock == nullptr ? fail(EINVAL, "lock is NULL") : lock->impl->units();
}

void gpurt_kx_close(gpurt_kx* lock) { delete lock; }

int gpurt_kx_unlink(const char* name) { return ShmLock::unlink(LockKind::kx, name); }

const char* gpurt_last_error(void) { return gpurt::runtime::last_error(); }

}  // extern "C"

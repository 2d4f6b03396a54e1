// The C API of gpurt.h: thin wrappers that turn ShmLock's negative errno values into the C
// conventions (NULL + errno for constructors, -errno otherwise). No exception crosses them.
#include <cerrno>
#include <limits>
#include <memory>
#include <span>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/shm_lock.hpp"

// gpurt_smlp_lock/unlock and gpurt_kx_acquire/release live in shm_lock.cpp, next to the
// protocol, so that the compiler folds them into it (a wrapper in this file cost 1.5 ns of an
// uncontended lock+unlock of 16 ns, docs/runtime.md).

using gpurt::runtime::fail;
using gpurt::runtime::LockKind;
using gpurt::runtime::ShmLock;

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

int gpurt_smlp_units(const gpurt_smlp* lock) {
  return lock == nullptr ? fail(EINVAL, "lock is NULL") : lock->impl->units();
}

void gpurt_smlp_close(gpurt_smlp* lock) { delete lock; }

int gpurt_smlp_unlink(const char* name) { return ShmLock::unlink(LockKind::smlp, name); }

gpurt_kx* gpurt_kx_open(const char* name, int k) {
  return open_handle<gpurt_kx>(LockKind::kx, name, k, GPURT_POLICY_FIFO);
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

int gpurt_set_create_mode(int mode) { return gpurt::runtime::set_create_mode(mode); }

const char* gpurt_last_error(void) { return gpurt::runtime::last_error(); }

}  // extern "C"

/* gpurt C API: SMLP and k-exclusion locks shared by all threads of all processes on one machine.
 * Installed as <gpurt/gpurt.h>; link with -lgpurt. Usable from C, C++ and Python (ctypes).
 *
 * Error convention: functions returning int return a negative errno value on failure; functions
 * returning a pointer return NULL and set errno. In both cases gpurt_last_error() holds a
 * sentence naming the problem (thread-local, valid until the calling thread's next gpurt call).
 *
 * A lock lives in POSIX shared memory (/dev/shm/gpurt-smlp-NAME or gpurt-kx-NAME) until
 * gpurt_*_unlink removes it. Ownership is per thread: the thread that got units or a slot must
 * be the one that returns them. If a holder or waiter PROCESS dies (even by SIGKILL), its units,
 * slots and queue entries are reclaimed by the other users of the lock when one waits (its poll,
 * every 50 ms) or gets fewer units than it asked for -- a later process that has the dead one's
 * pid included (the start time tells them apart). A
 * thread that exits while holding units in a process that lives on is not detected: its units
 * stay held until that process exits. */
#ifndef GPURT_GPURT_H
#define GPURT_GPURT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most partition units (SMs, TPCs, green-context groups, CUs) one lock can manage. */
#define GPURT_MAX_UNITS 256
/** Longest lock name accepted, in bytes, without a leading '/'. */
#define GPURT_MAX_NAME 200
/** Most requests that may wait in one lock's queue at once (more: -EAGAIN). */
#define GPURT_MAX_WAITERS 256

/** Queue policies for gpurt_smlp_open. */
#define GPURT_POLICY_FIFO 0     /**< first come, first served (FFT/SMLP seed, Algorithm 1) */
#define GPURT_POLICY_PRIORITY 1 /**< larger priority value first; equal priorities FIFO */

typedef struct gpurt_smlp gpurt_smlp;
/** A set of units: unit u is bit u%64 of bits[u/64]. */
typedef struct {
  uint64_t bits[4];
} gpurt_mask;

/** Opens the SMLP lock NAME over UNITS units (1..256), creating it if it does not exist (with
 * the permissions of gpurt_set_create_mode: by default 0600).
 * NAME: 1..200 characters, no '/' except an optional leading one. POLICY: GPURT_POLICY_*.
 * Attaching to an existing lock with a different unit count or policy fails with EINVAL (the
 * message names both values); it never resizes. Returns NULL + errno on error: EINVAL (bad
 * argument), ENAMETOOLONG, EACCES, ETIMEDOUT (the creator never finished initialising it),
 * EPROTO (the segment is not a gpurt lock of this version, or its header is out of range: units
 * outside 1..256, an unknown policy, counts beyond their limits). Thread-safe. */
gpurt_smlp* gpurt_smlp_open(const char* name, int units, int policy);

/** Blocks until this request is at the head of the queue and at least one unit is free, then
 * grants the largest size in ALLOWED_SIZES (N entries, any order, duplicates ignored, each
 * 1..units, must contain 1) not above the number of free units -- the analysis' smlp_grant --
 * and writes the granted units to *OUT: the lowest-numbered free units. PRIORITY orders the
 * queue under GPURT_POLICY_PRIORITY (larger first) and is ignored under FIFO. Waits with a short
 * adaptive spin, then sleeps in the kernel (futex). Returns the number of units granted (> 0),
 * or -EINVAL (bad sizes; OUT or the lock NULL) or -EAGAIN (queue full). A process stopped inside
 * the segment's critical section (nanoseconds; up to milliseconds while it reclaims dead
 * processes' records, reading /proc) blocks this call until it resumes (there is no timeout).
 * Not a cancellation point: a pthread_cancel takes effect at the caller's next one. Signals do
 * not delay the reclaim of a dead holder. Thread-safe: any number of threads may share one
 * handle. */
int gpurt_smlp_lock(gpurt_smlp* lock, const int* allowed_sizes, int n, int priority, gpurt_mask* out);

/** Returns the units in *HELD (all held by the calling thread; a subset of a grant is allowed)
 * and wakes the next waiter. Returns 0, -EINVAL (empty mask, a unit >= units, or a unit that is
 * free: e.g. a double unlock) or -EPERM (a unit held by another thread or process). Nothing is
 * released when it fails. Thread-safe. */
int gpurt_smlp_unlock(gpurt_smlp* lock, const gpurt_mask* held);

/** Units of the lock (H). */
int gpurt_smlp_units(const gpurt_smlp* lock);

/** Unmaps the lock. Does not release units this process holds (unlock them first); the lock
 * itself persists for other processes. NULL is ignored. Not safe while other threads use LOCK. */
void gpurt_smlp_close(gpurt_smlp* lock);

/** Removes the name NAME; processes that have it open keep using it. 0 or -errno (-ENOENT). */
int gpurt_smlp_unlink(const char* name);

/* ---- k-exclusion (Dissertation §6.1.2-6.1.3): k slots, FIFO; a caller maps a slot to a
 * partition (e.g. slot i -> the i-th SE-distributed CU mask). ---- */
typedef struct gpurt_kx gpurt_kx;

/** Opens the k-exclusion lock NAME with K slots (1..256), creating it if needed. K == 0 attaches
 * to an existing lock of any size (ENOENT when there is none). Attaching with a different
 * nonzero K fails with EINVAL. NULL + errno on error, as gpurt_smlp_open. Thread-safe. */
gpurt_kx* gpurt_kx_open(const char* name, int k);

/** Blocks (FIFO) until a slot is free; returns the slot index (0..k-1, the lowest free one) or
 * -errno as gpurt_smlp_lock. Thread-safe. */
int gpurt_kx_acquire(gpurt_kx* lock);

/** Returns SLOT, acquired by the calling thread. 0, -EINVAL (out of range or not held) or
 * -EPERM (held by another thread). Thread-safe. */
int gpurt_kx_release(gpurt_kx* lock, int slot);

/** Changes the number of slots to K (1..256). Only while no slot is held and no one waits:
 * otherwise -EBUSY and nothing changes (a slot held or a wait by a process that died does not
 * count: it is reclaimed first). 0 or -errno. Thread-safe. */
int gpurt_kx_resize(gpurt_kx* lock, int k);

/** Current number of slots. */
int gpurt_kx_slots(const gpurt_kx* lock);

/** As gpurt_smlp_close / gpurt_smlp_unlink. */
void gpurt_kx_close(gpurt_kx* lock);
int gpurt_kx_unlink(const char* name);

/** Permission bits of the lock segments this process creates from now on (process-wide; default
 * 0600: only the creating user may open them). 0660 lets the creator's group use the lock too;
 * 0666 lets every user. MODE must contain 0600 and nothing outside 0666; it is applied exactly
 * (the umask does not narrow it). Existing segments keep their permissions. While the mode is
 * 0600, opening a segment another user owns fails with -EACCES (a name squatted in /dev/shm).
 * Returns the previous
 * mode, or -EINVAL. Trust model: docs/runtime.md "Who may open a lock". */
int gpurt_set_create_mode(int mode);

/** The calling thread's message for its last failed gpurt call ("" if none). */
const char* gpurt_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* GPURT_GPURT_H */

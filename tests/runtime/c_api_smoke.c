/* The C API used from C (the header must be valid C99): open, lock, unlock, refuse a double
 * unlock, k-exclusion acquire/release. Exit status 0 when everything behaves. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <gpurt/gpurt.h>

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "c_api_smoke: %s failed: %s\n", #cond, gpurt_last_error()); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "gpurt-c-smoke-%d", (int)getpid());
  gpurt_smlp* lock = gpurt_smlp_open(name, 16, GPURT_POLICY_FIFO);
  CHECK(lock != NULL);
  const int sizes[] = {1, 2, 4};
  gpurt_mask m;
  CHECK(gpurt_smlp_lock(lock, sizes, 3, 0, &m) == 4);
  CHECK(m.bits[0] == 0xf);
  CHECK(gpurt_smlp_unlock(lock, &m) == 0);
  CHECK(gpurt_smlp_unlock(lock, &m) == -EINVAL);
  gpurt_smlp_close(lock);
  CHECK(gpurt_smlp_unlink(name) == 0);

  gpurt_kx* kx = gpurt_kx_open(name, 2);
  CHECK(kx != NULL);
  CHECK(gpurt_kx_acquire(kx) == 0);
  CHECK(gpurt_kx_acquire(kx) == 1);
  CHECK(gpurt_kx_release(kx, 0) == 0);
  CHECK(gpurt_kx_release(kx, 1) == 0);
  gpurt_kx_close(kx);
  CHECK(gpurt_kx_unlink(name) == 0);
  puts("c_api_smoke: ok");
  return 0;
}

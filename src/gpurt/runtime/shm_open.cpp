// Creating, attaching to and removing a lock's shared-memory segment; error messages.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "gpurt/runtime/shm_lock.hpp"
#include "gpurt/runtime/shm_segment.hpp"

namespace gpurt::runtime {

namespace {

constexpr auto kAttachWait = std::chrono::seconds(2);  // for a creator still initialising

thread_local std::string t_error;

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

int fail(int err, std::string message) noexcept {
  try {
    t_error = std::move(message);
  } catch (...) {
    t_error.clear();  // out of memory for the message; the code still says what happened
  }
  return -err;
}

const char* last_error() noexcept { return t_error.c_str(); }

namespace {
std::atomic<int> g_create_mode{0600};
}  // namespace

int set_create_mode(int mode) noexcept {
  if ((mode & ~0666) != 0 || (mode & 0600) != 0600) {
    return fail(EINVAL, fmt::format("mode {:o}: must contain 0600 and nothing outside 0666", mode));
  }
  return g_create_mode.exchange(mode);
}

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
      const int mode = g_create_mode.load();
      fd = shm_open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
      if (fd >= 0) {
        created = true;
        // Exactly `mode`, whatever the umask (a umask of 022 would take group write from 0660).
        if (fchmod(fd, static_cast<mode_t>(mode)) != 0) {
          const int err = errno;
          close(fd);
          shm_unlink(path.c_str());
          return fail(err, fmt::format("fchmod({}): {}", path, std::strerror(err)));
        }
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
    // Another user's segment: /dev/shm is world-writable, so anyone can create a name first, make
    // it 0666 and then decide who gets which SMs. A process that has not widened its own mode (it
    // does not share locks across users) attaches only to its own user's segments.
    if (st.st_uid != geteuid() && (g_create_mode.load() & 077) == 0) {
      close(fd);
      return fail(EACCES,
                  fmt::format("{} belongs to uid {}, not this user (uid {}); a process that shares locks "
                              "with other users sets gpurt_set_create_mode(0660) first",
                              path, st.st_uid, geteuid()));
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
    } else if (have < 1 || have > GPURT_MAX_UNITS ||
               (seg->policy != GPURT_POLICY_FIFO && seg->policy != GPURT_POLICY_PRIORITY) ||
               seg->free_count < 0 || seg->free_count > have ||
               seg->waiting.load(std::memory_order_relaxed) < 0 ||
               seg->waiting.load(std::memory_order_relaxed) > GPURT_MAX_WAITERS) {
      err = EPROTO;
      problem = fmt::format(
          "{} is damaged: units = {} (must be 1..{}), policy = {}, free = {}, waiting = {}; remove it with "
          "gpurt_*_unlink",
          path, have, GPURT_MAX_UNITS, seg->policy, seg->free_count,
          seg->waiting.load(std::memory_order_relaxed));
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

int ShmLock::units() const noexcept { return unit_count(*_seg); }
int ShmLock::policy() const noexcept { return _seg->policy; }
int ShmLock::waiting() const noexcept { return _seg->waiting.load(std::memory_order_relaxed); }

}  // namespace gpurt::runtime

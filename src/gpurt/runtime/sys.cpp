#include "gpurt/runtime/sys.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace gpurt::runtime {

namespace {

void on_fork_child() noexcept { detail::g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

struct AtforkRegistration {
  AtforkRegistration() noexcept { pthread_atfork(nullptr, nullptr, on_fork_child); }
};
const AtforkRegistration g_atfork;

// State (field 3) and start time (field 22) of /proc/PID/stat; false if it cannot be read.
bool read_stat(std::int32_t pid, char* state, std::uint64_t* start) noexcept {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* f = std::fopen(path, "re");
  if (f == nullptr) return false;
  char buf[1024];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // The command name (field 2) is in parentheses and may contain anything; skip past the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return false;
  ++p;
  int field = 2;
  *state = '?';
  while (*p != '\0') {
    while (*p == ' ') ++p;
    ++field;
    if (field == 3) *state = *p;
    if (field == 22) {
      *start = std::strtoull(p, nullptr, 10);
      return true;
    }
    while (*p != ' ' && *p != '\0') ++p;
  }
  return false;
}

}  // namespace

namespace detail {

__thread SelfCache t_self __attribute__((tls_model("initial-exec"))) = {};
std::atomic<std::uint32_t> g_fork_generation{1};

const Identity& refresh_self() noexcept {
  SelfCache& c = t_self;
  c.id.pid = static_cast<std::int32_t>(getpid());
  c.id.tid = static_cast<std::int32_t>(syscall(SYS_gettid));
  char state = '?';
  c.id.start = 0;
  read_stat(c.id.pid, &state, &c.id.start);
  c.generation = g_fork_generation.load(std::memory_order_relaxed);
  return c.id;
}

}  // namespace detail

bool process_alive(std::int32_t pid, std::uint64_t start) noexcept {
  if (pid <= 0) return false;
  if (pid == self().pid) return true;
  char state = '?';
  std::uint64_t now_start = 0;
  if (!read_stat(pid, &state, &now_start)) {
    // No /proc entry: dead, unless /proc is not mounted, where kill(pid, 0) must decide.
    if (access("/proc/self/stat", R_OK) == 0) return false;
    return kill(pid, 0) == 0 || errno == EPERM;
  }
  if (state == 'Z' || state == 'X') return false;
  return start == 0 || now_start == start;
}

bool futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                std::chrono::nanoseconds timeout) noexcept {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
  const long r =
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
  return !(r == -1 && errno == ETIMEDOUT);
}

void futex_wake(std::atomic<std::uint32_t>* word, int count) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, count, nullptr, nullptr, 0);
}

}  // namespace gpurt::runtime

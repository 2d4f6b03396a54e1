#include "gpurt/runtime/sys.hpp"

#include <dirent.h>
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

// Reading /proc goes through open/opendir, which are cancellation points: a pthread_cancel
// acted on there would unwind through the locks' noexcept functions (std::terminate), mostly
// inside their critical section. The lock calls are no cancellation points: cancellation is off
// while these helpers run, and a pending cancel is acted on at the caller's next one.
class NoCancel {
 public:
  NoCancel() noexcept { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &_old); }
  ~NoCancel() { pthread_setcancelstate(_old, nullptr); }
  NoCancel(const NoCancel&) = delete;
  NoCancel& operator=(const NoCancel&) = delete;

 private:
  int _old = PTHREAD_CANCEL_ENABLE;
};

// State (field 3) and start time (field 22) of /proc/PID/stat; false if it cannot be read.
bool read_stat(std::int32_t pid, char* state, std::uint64_t* start) noexcept {
  const NoCancel no_cancel;
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

// Whether the zombie `pid` still runs threads: a process whose main thread called pthread_exit
// shows state Z for its leader while the others run; a dead, unreaped one has only the leader.
bool has_running_threads(std::int32_t pid) noexcept {
  const NoCancel no_cancel;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
  DIR* dir = opendir(path);
  if (dir == nullptr) return errno != ENOENT;  // cannot tell: alive (never free a live holder's units)
  int tasks = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++tasks;
  }
  closedir(dir);
  return tasks > 1;
}

bool process_alive(std::int32_t pid, std::uint64_t start) noexcept {
  if (pid <= 0) return false;
  // Our own pid: alive only as this process. A record of an earlier process that had our pid
  // (reused after it died) is dead, or this process would wait behind it for ever.
  if (pid == self().pid) return start == 0 || start == self().start || self().start == 0;
  // Only "no such process" is dead. A process of another user (EPERM; /proc hidden by hidepid)
  // and a /proc entry that cannot be read (out of descriptors) are alive: freeing a live
  // holder's units would hand its SMs to a second job.
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  char state = '?';
  std::uint64_t now_start = 0;
  if (!read_stat(pid, &state, &now_start)) return errno != ENOENT || kill(pid, 0) == 0 || errno == EPERM;
  if (state == 'X') return false;
  if (state == 'Z' && !has_running_threads(pid)) return false;
  return start == 0 || now_start == start;  // another process under a reused pid is not the holder
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

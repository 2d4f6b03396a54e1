#include "gpurt/bench/runner.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "gpurt/bench/barrier.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/time.hpp"

namespace gpurt {

namespace {

using detail::Barrier;

void sleep_until_monotonic(std::int64_t ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// In a MAP_SHARED mapping when the workers are processes: the common start (CLOCK_MONOTONIC
// ns, the origin of every run time) and whether any worker failed.
struct Shared {
  std::atomic<std::int64_t> start_ns{0};
  std::atomic<int> failed{0};
};
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "run clock must be shareable across fork");

void set_start(void* shared) { static_cast<Shared*>(shared)->start_ns.store(monotonic_ns()); }

struct Outcome {
  InstanceTrace trace;
  std::string error;
};

void pin_to_core(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(core), &set);
  // pid 0: the calling thread (Linux), so each worker thread pins only itself.
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw Error(fmt::format("cpu_core {}: sched_setaffinity failed: {}", core, std::strerror(errno)));
  }
}

// The iteration loop of one instance; the same decisions, in the same order, as the
// simulator's host model (sim/host.cpp, Phase::iteration_begin).
void iterate(const Scenario& s, const ScenarioInstance& inst, BenchPlugin& plugin, const PluginContext& ctx,
             Barrier* sync, Shared& shared, InstanceTrace& out) {
  const std::int64_t start = shared.start_ns.load();
  sleep_until_monotonic(start + inst.release_time.count());
  std::int64_t started = 0, recorded = 0;
  while (true) {
    const bool counted = !(s.do_warmup && started == 0);
    const bool out_of_iterations = inst.max_iterations > 0 && recorded >= inst.max_iterations;
    const bool out_of_time = inst.max_time.count() > 0 && ctx.now() - inst.release_time >= inst.max_time;
    if (shared.failed.load() != 0 || (counted && (out_of_iterations || out_of_time))) return;
    if (sync) sync->arrive_and_wait();
    if (inst.period.count() > 0)
      sleep_until_monotonic(start + (inst.release_time + inst.period * started).count());
    ++started;
    IterationRecord it;
    it.copy_in_start = ctx.now();
    plugin.copy_in(it);
    it.copy_in_end = it.execute_start = ctx.now();
    plugin.execute(it);
    it.execute_end = it.copy_out_start = ctx.now();
    plugin.copy_out(it);
    it.copy_out_end = ctx.now();
    if (counted) {
      out.iterations.push_back(std::move(it));
      ++recorded;
    }
  }
}

Outcome run_worker(const Scenario& s, const Platform& p, std::size_t index, std::optional<int> core,
                   WorkerBackend& backend, Barrier& start, Barrier* sync, Barrier& finish, Shared& shared) {
  const ScenarioInstance& inst = s.instances[index];
  Outcome out;
  out.trace.benchmark_name = inst.plugin;
  out.trace.label = inst.label;
  out.trace.log_name = inst.log_name;
  out.trace.release_time = inst.release_time;
  out.trace.thread_count = inst.thread_count;
  out.trace.block_count = inst.block_count;
  out.trace.data_size = inst.data_size;
  out.trace.stream = static_cast<int>(index);
  PluginContext ctx;
  ctx.scenario = &s;
  ctx.instance = &inst;
  ctx.platform = &p;
  ctx.now = [&shared] { return Nanos{monotonic_ns() - shared.start_ns.load()}; };
  ctx.from_monotonic = [&shared](std::int64_t t) { return Nanos{t - shared.start_ns.load()}; };
  std::unique_ptr<BenchPlugin> plugin;
  try {
    if (core) pin_to_core(*core);
    plugin = backend.open(ctx);
  } catch (const std::exception& e) {
    out.error = e.what();
    shared.failed.store(1);
  }
  try {
    start.arrive_and_wait();  // every worker initialised: the run clock starts now
  } catch (const std::exception& e) {
    if (out.error.empty()) out.error = e.what();
  }
  if (out.error.empty()) {
    try {
      iterate(s, inst, *plugin, ctx, sync, shared, out.trace);
    } catch (const std::exception& e) {
      out.error = e.what();
      shared.failed.store(1);
    }
  }
  if (sync) sync->arrive_and_drop();
  // Every worker done measuring before any cleans up, as the examiner does: a cudaFree or
  // cudaFreeHost synchronises the device (Dissertation Pitfall 3.3) and would stretch the
  // iterations other instances are still recording.
  try {
    finish.arrive_and_wait();
  } catch (const std::exception& e) {
    if (out.error.empty()) out.error = e.what();
  }
  if (plugin) {
    try {
      plugin->cleanup();
    } catch (const std::exception& e) {
      if (out.error.empty()) out.error = e.what();
    }
  }
  backend.close(ctx);
  return out;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::vector<Outcome> run_threads(const Scenario& s, const Platform& p,
                                 const std::vector<std::optional<int>>& cores, WorkerBackend& backend,
                                 Shared& shared) {
  const int n = static_cast<int>(s.instances.size());
  auto start = detail::make_thread_barrier(n, {&set_start, &shared});
  auto sync = s.sync_every_iteration ? detail::make_thread_barrier(n) : nullptr;
  auto finish = detail::make_thread_barrier(n);
  std::vector<Outcome> outcomes(s.instances.size());
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    workers.emplace_back([&, i] {
      outcomes[i] = run_worker(s, p, i, cores[i], backend, *start, sync.get(), *finish, shared);
    });
  }
  for (std::thread& t : workers) t.join();
  return outcomes;
}

// One forked child per instance (Dissertation §3.3.2 step 2: separate CUDA contexts). The
// child sends "ok\n" + its encoded trace, or "error\n" + the message, through a pipe.
std::vector<Outcome> run_processes(const Scenario& s, const Platform& p,
                                   const std::vector<std::optional<int>>& cores, WorkerBackend& backend,
                                   Shared& shared) {
  const int n = static_cast<int>(s.instances.size());
  auto start = detail::make_process_barrier(n, {&set_start, &shared});
  auto sync = s.sync_every_iteration ? detail::make_process_barrier(n) : nullptr;
  auto finish = detail::make_process_barrier(n);
  std::vector<pid_t> pids;
  std::vector<int> fds;
  const pid_t parent = getpid();
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    int pipefd[2];
    if (pipe(pipefd) != 0) throw Error(fmt::format("bench: pipe failed: {}", std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw Error(fmt::format("bench: fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
      // A worker must not outlive the run: if the parent dies (killed, or ended by `gpurt bench
      // --timeout`), so does the worker, with whatever GPU work it has. The parent may have died
      // before the prctl took effect: then getppid() is no longer the parent.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      ::close(pipefd[0]);
      for (int fd : fds) ::close(fd);
      std::string message;
      try {
        // Read by CUDA when this process initialises it (MPS clients only; ignored otherwise).
        if (const auto& pct = s.instances[i].mps_thread_percentage) {
          setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", fmt::format("{}", *pct).c_str(), 1);
        }
        Outcome o = run_worker(s, p, i, cores[i], backend, *start, sync.get(), *finish, shared);
        message = o.error.empty() ? "ok\n" + encode_instance(o.trace) : "error\n" + o.error;
      } catch (const std::exception& e) {
        message = std::string("error\n") + e.what();
      }
      write_all(pipefd[1], message);
      ::close(pipefd[1]);
      _exit(0);  // no atexit handlers, no stdio flush of the parent's buffers
    }
    ::close(pipefd[1]);
    pids.push_back(pid);
    fds.push_back(pipefd[0]);
  }
  // Read every pipe as data arrives (poll), so a child that dies is noticed at once: its
  // barriers are broken, and the others stop instead of waiting for it forever.
  std::vector<Outcome> outcomes(s.instances.size());
  std::vector<std::string> texts(fds.size());
  std::vector<bool> open(fds.size(), true);
  std::size_t remaining = fds.size();
  while (remaining > 0) {
    std::vector<pollfd> pfds;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!open[i]) continue;
      pfds.push_back({fds[i], POLLIN, 0});
      index.push_back(i);
    }
    if (poll(pfds.data(), pfds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("bench: poll failed: {}", std::strerror(errno)));
    }
    for (std::size_t k = 0; k < pfds.size(); ++k) {
      if (pfds[k].revents == 0) continue;
      const std::size_t i = index[k];
      char buf[65536];
      const ssize_t got = ::read(fds[i], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        texts[i].append(buf, static_cast<std::size_t>(got));
        continue;
      }
      ::close(fds[i]);
      open[i] = false;
      --remaining;
      int status = 0;
      waitpid(pids[i], &status, 0);
      const std::string& text = texts[i];
      if (text.rfind("ok\n", 0) == 0) {
        outcomes[i].trace = decode_instance(text.substr(3));
      } else if (text.rfind("error\n", 0) == 0) {
        outcomes[i].error = text.substr(6);
      } else {
        outcomes[i].error = WIFSIGNALED(status)
                                ? fmt::format("worker process killed by signal {}", WTERMSIG(status))
                                : "worker process exited without a result";
        shared.failed.store(1);
        start->break_all();
        if (sync) sync->break_all();
        finish->break_all();
      }
    }
  }
  return outcomes;
}

}  // namespace

std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    throw Error(fmt::format("bench: sched_getaffinity failed: {}", std::strerror(errno)));
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(static_cast<std::size_t>(c), &set)) cpus.push_back(c);
  }
  return cpus;
}

std::vector<std::optional<int>> assign_cpu_cores(const Scenario& scenario, const std::vector<int>& cpus) {
  std::vector<std::optional<int>> cores(scenario.instances.size());
  std::vector<int> named;
  for (std::size_t i = 0; i < scenario.instances.size(); ++i) {
    const std::optional<int>& c = scenario.instances[i].cpu_core;
    if (!c) continue;
    if (std::find(cpus.begin(), cpus.end(), *c) == cpus.end()) {
      std::string allowed;
      for (int x : cpus) allowed += (allowed.empty() ? "" : ",") + std::to_string(x);
      throw InputError(scenario.source, fmt::format("benchmarks[{}].cpu_core", i), std::to_string(*c),
                       fmt::format("this process may run only on CPUs {}", allowed));
    }
    cores[i] = c;
    named.push_back(*c);
  }
  if (!scenario.pin_cpus || cpus.empty()) return cores;
  // Round-robin, the CPUs no cpu_core names first, so pinned instances spread out.
  std::vector<int> order;
  for (int c : cpus) {
    if (std::find(named.begin(), named.end(), c) == named.end()) order.push_back(c);
  }
  for (int c : cpus) {
    if (std::find(named.begin(), named.end(), c) != named.end()) order.push_back(c);
  }
  std::size_t next = 0;
  for (std::optional<int>& c : cores) {
    if (!c) c = order[next++ % order.size()];
  }
  return cores;
}

std::vector<InstanceTrace> run_instances(const Scenario& scenario, const Platform& platform,
                                         WorkerBackend& backend) {
  if (scenario.instances.empty()) throw Error("bench: the scenario has no benchmarks");
  const std::vector<std::optional<int>> cores = assign_cpu_cores(scenario, usable_cpus());
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw Error("bench: mmap of the shared run state failed");
  Shared* shared = new (mem) Shared;
  std::vector<Outcome> outcomes;
  try {
    outcomes = scenario.use_processes ? run_processes(scenario, platform, cores, backend, *shared)
                                      : run_threads(scenario, platform, cores, backend, *shared);
  } catch (...) {
    munmap(mem, sizeof(Shared));
    throw;
  }
  munmap(mem, sizeof(Shared));
  // Report the first instance that failed for a reason of its own, not one stopped because
  // another worker died.
  std::size_t first = outcomes.size();
  for (std::size_t i = 0; i < outcomes.size() && first == outcomes.size(); ++i) {
    if (!outcomes[i].error.empty() && outcomes[i].error != detail::kBrokenBarrier) first = i;
  }
  if (first < outcomes.size()) {
    throw Error(fmt::format("benchmark {} ({}): {}", first, scenario.instances[first].log_name,
                            outcomes[first].error));
  }
  std::vector<InstanceTrace> traces;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].error.empty()) {
      throw Error(fmt::format("benchmark {} ({}): {}", i, scenario.instances[i].log_name, outcomes[i].error));
    }
    traces.push_back(std::move(outcomes[i].trace));
  }
  return traces;
}

}  // namespace gpurt

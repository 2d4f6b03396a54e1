// The microbenchmark plugin interface (Dissertation §3.3.2 steps 3-4): a plugin is initialised
// once in its worker (thread or child process), then runs iterations of copy_in / execute /
// copy_out, and is cleaned up. Plugins are C++ classes built into gpurt and found by name (the
// basename of a config's "filename", e.g. "./bin/timer_spin.so" -> "timer_spin").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// What a plugin gets from the runner. Times handed to a plugin and recorded by it are run
/// times: nanoseconds since the run's common start (every worker uses the same origin).
struct PluginContext {
  const Scenario* scenario = nullptr;
  const ScenarioInstance* instance = nullptr;
  const Platform* platform = nullptr;
  void* stream = nullptr;      ///< the instance's cudaStream_t (nullptr: the NULL stream)
  std::function<Nanos()> now;  ///< the run clock (CPU, CLOCK_MONOTONIC based)
  /// Run time of a CLOCK_MONOTONIC reading (ns); set by the runner.
  std::function<Nanos(std::int64_t)> from_monotonic;
  /// %globaltimer − CLOCK_MONOTONIC (ns), measured once per process by the gpu backend
  /// (docs/bench.md "Clock alignment"): a block's run time is
  /// from_monotonic(globaltimer − gpu_offset_ns).
  std::int64_t gpu_offset_ns = 0;
};

/// One microbenchmark instance. Each call may throw gpurt::Error; the runner then stops the
/// instance, and the run fails without writing result files.
class BenchPlugin {
 public:
  virtual ~BenchPlugin() = default;
  /// Allocates memory, reads the instance's settings. Not timed.
  virtual void initialize(const PluginContext& context) = 0;
  /// Moves input to the GPU. The runner records the phase's start and end.
  virtual void copy_in(IterationRecord& /*iteration*/) {}
  /// Launches the work and waits for it; appends one KernelRecord per kernel with its
  /// cuda_launch_times (launch_before, launch_after, sync_after).
  virtual void execute(IterationRecord& iteration) = 0;
  /// Moves results back and fills the kernels' block records (start, end in run time, SM).
  virtual void copy_out(IterationRecord& /*iteration*/) {}
  /// Frees what initialize took. Called once, also after a failed iteration.
  virtual void cleanup() {}
};

using PluginFactory = std::function<std::unique_ptr<BenchPlugin>()>;

/// Built-in plugins by name. Not thread-safe to modify; the built-ins are registered before
/// any run starts.
class PluginRegistry {
 public:
  void add(std::string name, PluginFactory factory);
  /// nullptr when `name` is unknown.
  const PluginFactory* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, PluginFactory>> _plugins;
};

}  // namespace gpurt

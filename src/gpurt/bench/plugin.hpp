// The microbenchmark plugin interface (Dissertation §3.3.2 steps 3-4): a plugin is initialised
// once in its worker (thread or child process), then runs iterations of copy_in / execute /
// copy_out, and is cleaned up. Plugins are C++ classes found by name (the basename of a config's
// "filename", e.g. "./bin/timer_spin.so" -> "timer_spin"): gpurt's built-in ones, and those of
// plugin libraries a user loads with load_plugin_library (`gpurt bench --plugin-lib FILE`).
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

/// Plugins by name. Not thread-safe to modify; every plugin is registered before a run starts.
class PluginRegistry {
 public:
  /// Adds `name`, replacing an earlier factory of the same name.
  void add(std::string name, PluginFactory factory);
  /// nullptr when `name` is unknown.
  const PluginFactory* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, PluginFactory>> _plugins;
};

/// The plugin-library interface version; a library built against another one is refused.
/// Bumped whenever BenchPlugin, PluginContext, PluginRegistry or the trace records change.
inline constexpr int kBenchPluginAbi = 1;

/// Loads a plugin library (a shared object built against this version of gpurt's headers and
/// linked with libgpurt). It must export
///   extern "C" int gpurt_bench_plugins(gpurt::PluginRegistry* registry, int abi);
/// which adds its plugins to `registry` and returns 0, or returns nonzero to refuse (e.g. when
/// `abi` != the kBenchPluginAbi it was built with). Returns the names the library added, sorted.
/// Throws gpurt::Error naming the file when it cannot be loaded, lacks the entry point, refuses,
/// adds nothing, or adds a name `registry` already has (a built-in cannot be replaced). The
/// library stays loaded for the life of the process.
std::vector<std::string> load_plugin_library(const std::string& path, PluginRegistry& registry);

}  // namespace gpurt

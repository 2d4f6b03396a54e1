// The host side of `gpurt bench` (Dissertation §3.3.2 steps 2-5): every benchmark instance runs
// in its own worker — a thread, or a forked process when the config says "use_processes" —
// which pins itself to its CPU ("cpu_core", or one "pin_cpus" chose), opens its plugin, waits for the common
// start, sleeps until its release_time, and runs iterations until max_iterations or max_time, optionally
// meeting the others at a barrier before each iteration ("sync_every_iteration"). A process sends its trace
// back through a pipe. The same loop as the simulator's host model (sim/host.cpp), so a prediction and a
// measurement of one config mean the same thing.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "gpurt/bench/plugin.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// What a backend does inside a worker: create the instance's stream and plugin. Called in
/// the worker thread or child process, never in the parent before a fork (a CUDA context
/// must not be copied into a child, Dissertation §3.3.2 step 3).
class WorkerBackend {
 public:
  virtual ~WorkerBackend() = default;
  /// The plugin for `instance`, initialised; fills context.stream and context.gpu_offset_ns.
  /// Throws gpurt::Error (e.g. an unknown plugin or a failed CUDA call).
  virtual std::unique_ptr<BenchPlugin> open(PluginContext& context) = 0;
  /// Releases what open() created for `context` (its stream), after the plugin's cleanup.
  virtual void close(PluginContext& /*context*/) noexcept {}
};

/// Runs every instance of `scenario` with plugins from `backend`. Returns one InstanceTrace
/// per instance, in config order, with run times (ns since the common start). Throws
/// gpurt::Error naming the first instance (log_name) that failed and why; nothing is written.
std::vector<InstanceTrace> run_instances(const Scenario& scenario, const Platform& platform,
                                         WorkerBackend& backend);

/// The CPUs the calling process may run on (sched_getaffinity), ascending.
std::vector<int> usable_cpus();

/// The CPU each instance's worker pins itself to (nullopt: left to the OS). An instance's
/// cpu_core wins; with pin_cpus the others go round-robin over `cpus`, first over those no
/// cpu_core names. Throws InputError (file, benchmarks[i].cpu_core, value) for a cpu_core not
/// in `cpus`, before anything runs.
std::vector<std::optional<int>> assign_cpu_cores(const Scenario& scenario, const std::vector<int>& cpus);

/// The trace of one instance as JSON and back: how a child process returns its result.
std::string encode_instance(const InstanceTrace& instance);
InstanceTrace decode_instance(const std::string& text);

}  // namespace gpurt

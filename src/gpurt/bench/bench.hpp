// `gpurt bench`: one examiner config (Dissertation §3.3), two backends with the same result
// files — `sim` predicts with the block-level simulator, `gpu` measures on a CUDA device with
// gpurt's built-in plugins (docs/bench.md).
#pragma once

#include <string>
#include <vector>

#include "gpurt/bench/plugin.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/sim/simulate.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

enum class BenchBackend { sim, gpu };

/// "sim" or "gpu"; throws InputError naming `--backend` otherwise.
BenchBackend parse_backend(const std::string& text);

/// Reads CONFIG with the one examiner parser (model/scenario), which checks every plugin's
/// additional_info for both backends; the gpu backend also accepts the plugins of `libraries`
/// (load_plugin_library), whose additional_info is theirs to check. For the gpu backend it also
/// refuses what that backend cannot do: mps_thread_percentage without use_processes, and (on a
/// machine with a usable GPU) an sm_mask that no partition backend of the device can give.
/// Throws InputError.
Scenario load_bench_scenario(const std::string& path, const Platform& platform, BenchBackend backend,
                             const PluginRegistry* libraries = nullptr, const ConfigLimits& limits = {});

/// Why the gpu backend cannot run on CUDA device `device` ("" when it can): built without
/// CUDA, no driver, no such device, or a device whose SM count differs from `platform` (masks
/// would mean other SMs). Probes in a forked child, so this process creates no CUDA context
/// (workers may fork later).
std::string gpu_backend_unavailable(const Platform& platform, int device = 0);

/// The SM count of CUDA device `device`, probed in a forked child as above (a caller that forks
/// CUDA workers later must not create a context itself); 0 and `why` set when there is none.
int device_sms_forked(int device, std::string& why);

struct BenchResult {
  Trace trace;     ///< times in ns since the run's start; trace.simulated for `sim`
  SimStats stats;  ///< `sim` only
};

/// Runs the scenario. `gpu` without a usable GPU throws InputError("--backend", "", "gpu",
/// reason) before anything runs (the CLI exits 2 and writes nothing). `libraries` holds plugins
/// loaded from plugin libraries, used by the gpu backend after the built-in ones.
BenchResult run_bench(const Scenario& scenario, const Platform& platform, BenchBackend backend,
                      const PluginRegistry* libraries = nullptr);

}  // namespace gpurt
